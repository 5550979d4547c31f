import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../test-support/cli.js';
import { buildCli } from '../test-support/real-clients.js';
import { readJsonc, readToml } from './config-text.js';

// biome-ignore lint/suspicious/noExplicitAny: hook answers and client settings, read field by field
type Json = any;

const PROXY = 'http://127.0.0.1:4747';

/** A home with each client's files as a user who already has settings of their own keeps them. */
function userHome() {
  const home = mkdtempSync(join(tmpdir(), 'spillway-setup-'));
  const files: Record<string, string> = {
    '.claude/settings.json':
      '{\n  "model": "opus",\n  "hooks": {\n    "PostToolUse": [{ "matcher": "Edit", "hooks": [{ "type": "command", "command": "prettier --write" }] }]\n  }\n}\n',
    '.claude.json':
      '{"numStartups":3,"mcpServers":{"github":{"type":"http","url":"https://example.test/mcp"}}}',
    '.codex/config.toml':
      '# my settings\nmodel = "o3" # fast\nmodel_provider = "azure"\n\n[model_providers.azure]\nname = "Azure"\nbase_url = "https://x.test"\n',
    '.codex/hooks.json':
      '{ "hooks": { "PreToolUse": [ { "matcher": "apply_patch", "hooks": [ { "type": "command", "command": "lint" } ] } ] } }\n',
    '.gemini/settings.json': '{\n  // my theme\n  "ui": { "theme": "GitHub" },\n}\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(home, path, '..'), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  return { home, files, env: { HOME: home, SPILLWAY_HOME: join(home, '.spillway') } };
}

const read = (home: string, path: string) => readFileSync(join(home, path), 'utf8');

describe('spillway setup', () => {
  it('merges into the files a user has, keeps their settings and comments, and undo restores every byte', async () => {
    const { home, files, env } = userHome();
    for (const client of ['claude', 'codex', 'gemini']) {
      const r = await cli(['setup', client, '--proxy', PROXY], { env });
      expect(r.code, r.stderr).toBe(0);
    }
    const claude = readJsonc(read(home, '.claude/settings.json'), 'settings.json') as Json;
    expect(claude.model).toBe('opus');
    expect(claude.hooks.PostToolUse.map((g: Json) => g.matcher)).toEqual(['Edit', 'Bash']);
    expect(claude.hooks.PostToolUse[1].hooks[0].command).toMatch(/ hook claude$/);
    expect(claude.env.ANTHROPIC_BASE_URL).toBe(PROXY);
    const state = JSON.parse(read(home, '.claude.json'));
    expect(Object.keys(state.mcpServers)).toEqual(['github', 'spillway']);
    expect(state.mcpServers.spillway).toMatchObject({
      args: [expect.stringMatching(/cli\.js$/), 'mcp'],
      alwaysLoad: true,
    });
    const toml = read(home, '.codex/config.toml');
    expect(toml).toContain('# my settings\nmodel = "o3" # fast\n');
    const codex = readToml(toml, 'config.toml') as Json;
    expect(codex.model_provider).toBe('spillway');
    expect(codex.model_providers.azure.name).toBe('Azure');
    expect(codex.model_providers.spillway.base_url).toBe(`${PROXY}/v1`);
    // spillway run stashes into spillway's folder from inside Codex's workspace-write sandbox.
    expect(codex.sandbox_workspace_write.writable_roots).toEqual([join(home, '.spillway')]);
    // Our hook group is the second in hooks.json: the trust key names index 1.
    const hookKey = `${join(home, '.codex/hooks.json')}:pre_tool_use:1:0`;
    expect(codex.hooks.state[hookKey].trusted_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const gemini = read(home, '.gemini/settings.json');
    expect(gemini).toContain('// my theme');
    expect((readJsonc(gemini, 's') as Json).hooks.BeforeTool[0].matcher).toBe('run_shell_command');
    expect(read(home, '.gemini/.env')).toContain(`GOOGLE_GEMINI_BASE_URL=${PROXY}`);

    // Twice is the same as once, and undo still returns to before the first.
    const again = await cli(['setup', 'codex', '--proxy', PROXY], { env });
    expect(again.code).toBe(0);
    expect(read(home, '.codex/config.toml')).toBe(toml);
    for (const client of ['claude', 'codex', 'gemini']) {
      const r = await cli(['setup', client, '--undo'], { env });
      expect(r.code, r.stderr).toBe(0);
    }
    for (const [path, text] of Object.entries(files)) expect(read(home, path), path).toBe(text);
    expect(() => read(home, '.gemini/.env')).toThrow();
  });

  it('the trust hash is the one Codex computes (codex-rs/hooks: sorted compact JSON, defaults filled)', async () => {
    const { codexTrustHash } = await import('./codex-setup.js');
    const { createHash } = await import('node:crypto');
    const json =
      '{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"x hook codex","timeout":600,"type":"command"}],"matcher":"Bash"}';
    expect(codexTrustHash('Bash', 'x hook codex')).toBe(
      `sha256:${createHash('sha256').update(json).digest('hex')}`,
    );
  });

  it('undo keeps what the client changed since, taking out only spillway’s entries', async () => {
    const { home, env } = userHome();
    await cli(['setup', 'claude'], { env });
    const state = JSON.parse(read(home, '.claude.json'));
    state.numStartups = 4; // Claude Code rewrites this file as it runs
    writeFileSync(join(home, '.claude.json'), JSON.stringify(state));
    const r = await cli(['setup', 'claude', '--undo'], { env });
    expect(r.stdout).toMatch(/\.claude\.json: changed since setup: took out only spillway's entries/);
    const after = JSON.parse(read(home, '.claude.json'));
    expect(after.numStartups).toBe(4);
    expect(Object.keys(after.mcpServers)).toEqual(['github']);
  });

  it('writes through a settings file that is a link (dotfiles), and undo leaves the link in place', async () => {
    const { home, files, env } = userHome();
    const dotfiles = join(home, 'dotfiles-settings.json');
    renameSync(join(home, '.claude/settings.json'), dotfiles);
    symlinkSync(dotfiles, join(home, '.claude/settings.json'));
    await cli(['setup', 'claude'], { env });
    expect(lstatSync(join(home, '.claude/settings.json')).isSymbolicLink()).toBe(true);
    expect(readFileSync(dotfiles, 'utf8')).toMatch(/hook claude/);
    await cli(['setup', 'claude', '--undo'], { env });
    expect(lstatSync(join(home, '.claude/settings.json')).isSymbolicLink()).toBe(true);
    expect(readFileSync(dotfiles, 'utf8')).toBe(files['.claude/settings.json']);
  });

  it('--print writes nothing; a file that does not parse is left alone with a clear error', async () => {
    const { home, files, env } = userHome();
    const printed = await cli(['setup', 'codex', '--print'], { env });
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('[mcp_servers.spillway]');
    expect(read(home, '.codex/config.toml')).toBe(files['.codex/config.toml']);
    writeFileSync(join(home, '.claude/settings.json'), '{ "model": ');
    const bad = await cli(['setup', 'claude'], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/settings\.json is not valid JSON .* on line 1\); fix it/);
    expect(read(home, '.claude/settings.json')).toBe('{ "model": ');
    const usage = await cli(['setup', 'cursor'], { env });
    expect(usage.code).toBe(2);
    expect((await cli(['setup', 'codex', '--proxy', 'localhost:4747'], { env })).code).toBe(2);
  });

  it('refuses a config.toml that already has a spillway table of its own', async () => {
    const { home, env } = userHome();
    writeFileSync(join(home, '.codex/config.toml'), '[mcp_servers.spillway]\ncommand = "spillway"\n');
    const r = await cli(['setup', 'codex'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/already has \[mcp_servers\.spillway\] of its own/);
  });
});

describe('spillway doctor', () => {
  beforeAll(() => buildCli(), 120_000);

  it('checks every link and names the fix for each that fails', async () => {
    const { home, env } = userHome();
    const none = await cli(['doctor'], { env });
    expect(none.code).toBe(1);
    expect(none.stdout).toMatch(/No client is set up/);
    for (const client of ['claude', 'codex', 'gemini']) await cli(['setup', client], { env });
    const ok = await cli(['doctor'], { env });
    expect(ok.stdout).toMatch(/Everything checks out/);
    expect(ok.stdout.match(/✓ the (claude|codex|gemini) hook runs and answers/g)).toHaveLength(3);
    expect(ok.stdout).toMatch(/✓ spillway mcp answers initialize/);
    expect(ok.stdout).toMatch(/✓ .*\.spillway is writable in Codex's workspace-write sandbox/);
    expect(ok.code).toBe(0);
    // A hook the user removed, and a proxy that is not running.
    writeFileSync(join(home, '.codex/hooks.json'), '{}');
    await cli(['setup', 'gemini', '--proxy', 'http://127.0.0.1:9'], { env });
    writeFileSync(join(home, '.spillway/token'), `${'a'.repeat(64)}\n`, { mode: 0o644 });
    const bad = await cli(['doctor'], { env });
    expect(bad.stdout).toMatch(/✗ the recall token .*token is not yours alone \(mode 644\)\n\s+fix: rm /);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(
      /✗ .*hooks\.json no longer has what setup wrote.*\n\s+fix: spillway setup codex\n/,
    );
    expect(bad.stdout).toMatch(
      /✗ no proxy answers at http:\/\/127\.0\.0\.1:9.*\n\s+fix: start it: spillway proxy --port 9/,
    );
  });

  it("says when the user's own sandbox table keeps spillway's folder read-only under Codex", async () => {
    const { home, env } = userHome();
    writeFileSync(join(home, '.codex/config.toml'), '[sandbox_workspace_write]\nnetwork_access = true\n');
    expect((await cli(['setup', 'codex'], { env })).code).toBe(0);
    const r = await cli(['doctor', 'codex'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /✗ .* is not writable in Codex's workspace-write sandbox.*\n\s+fix: add ".*\.spillway" to writable_roots/,
    );
  });
});
