import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../test-support/cli.js';
import { buildCli, ROOT } from '../test-support/real-clients.js';
import { startScriptedModel } from '../test-support/scripted-model.js';
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
      '# my settings\nmodel = "o3" # fast\nmodel_provider = "azure"\n\n[model_providers.azure]\nname = "Azure"\nbase_url = "https://x.test/v1"\nenv_key = "AZURE_KEY"\n',
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

// The doctor's hook checks and the proxy a user starts run the built CLI.
beforeAll(() => buildCli(), 120_000);

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
    // The user's provider is chained: its key variable, and its endpoint as the proxy's upstream.
    expect(codex.model_providers.spillway.env_key).toBe('AZURE_KEY');
    expect(JSON.parse(read(home, '.spillway/upstreams.json'))).toMatchObject({ openai: 'https://x.test' });
    // Codex starts MCP servers with a reduced environment: recall is told where the store is.
    expect(codex.mcp_servers.spillway.env).toEqual({ SPILLWAY_HOME: join(home, '.spillway') });
    // Codex's sandbox gets no folder of spillway's; its shell commands read the capture.
    expect(codex.sandbox_workspace_write).toBeUndefined();
    const capture = join(home, '.codex/spillway/capture.bash');
    expect(codex.shell_environment_policy.set.BASH_ENV).toBe(capture);
    expect(read(home, '.codex/spillway/capture.bash')).toMatch(/^# spillway: /);
    // The user's PreToolUse group stays; ours is the first PostToolUse group: the key names 0.
    const hooks = readJsonc(read(home, '.codex/hooks.json'), 'hooks.json') as Json;
    expect(hooks.hooks.PreToolUse.map((g: Json) => g.matcher)).toEqual(['apply_patch']);
    expect(hooks.hooks.PostToolUse[0].hooks[0].command).toMatch(/ hook codex$/);
    const hookKey = `${join(home, '.codex/hooks.json')}:post_tool_use:0:0`;
    expect(codex.hooks.state[hookKey].trusted_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const gemini = read(home, '.gemini/settings.json');
    expect(gemini).toContain('// my theme');
    const geminiHooks = (readJsonc(gemini, 's') as Json).hooks;
    expect(geminiHooks.AfterTool[0].matcher).toBe('run_shell_command');
    expect(geminiHooks.BeforeTool).toBeUndefined();
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
    expect(() => read(home, '.codex/spillway/capture.bash')).toThrow();
  });

  it('takes out the command-rewriting hooks an earlier spillway installed, and nothing of the user’s', async () => {
    const { home, env } = userHome();
    const lint = { matcher: 'apply_patch', hooks: [{ type: 'command', command: 'lint' }] };
    const old = (matcher: string, client: string) => ({
      matcher,
      hooks: [{ type: 'command', command: `/usr/bin/node /old/dist/cli.js hook ${client}` }],
    });
    writeFileSync(
      join(home, '.codex/hooks.json'),
      JSON.stringify({ hooks: { PreToolUse: [lint, old('Bash', 'codex')] } }),
    );
    writeFileSync(
      join(home, '.gemini/settings.json'),
      JSON.stringify({ hooks: { BeforeTool: [old('run_shell_command', 'gemini')] } }),
    );
    for (const client of ['codex', 'gemini']) expect((await cli(['setup', client], { env })).code).toBe(0);
    const codex = (readJsonc(read(home, '.codex/hooks.json'), 'h') as Json).hooks;
    expect(codex.PreToolUse).toEqual([lint]);
    expect(codex.PostToolUse).toHaveLength(1);
    const gemini = (readJsonc(read(home, '.gemini/settings.json'), 's') as Json).hooks;
    expect(gemini.BeforeTool).toBeUndefined();
    expect(gemini.AfterTool).toHaveLength(1);
  });

  it("hands the user's own BASH_ENV to the capture, which reads it and gives it back to the shell", async () => {
    const { home, env } = userHome();
    const own = join(home, 'my env.bash');
    expect((await cli(['setup', 'codex'], { env: { ...env, BASH_ENV: own } })).code).toBe(0);
    const script = read(home, '.codex/spillway/capture.bash');
    expect(script).toContain(`BASH_ENV='${own}'; } 2>/dev/null; . '${own}'\n`);
    expect(script).not.toMatch(/unset BASH_ENV/);
  });

  it("leaves a [shell_environment_policy] of the user's own as it is (no capture), and says so", async () => {
    const { home, env } = userHome();
    const mine = '[shell_environment_policy]\ninherit = "core"\n';
    writeFileSync(join(home, '.codex/config.toml'), mine);
    expect((await cli(['setup', 'codex'], { env })).code).toBe(0);
    const toml = read(home, '.codex/config.toml');
    expect(toml.startsWith(mine)).toBe(true);
    expect((readToml(toml, 'c') as Json).shell_environment_policy).toEqual({ inherit: 'core' });
  });

  it('undo on a file the client changed since leaves no empty object of spillway’s behind', async () => {
    const { home, env } = userHome();
    writeFileSync(join(home, '.claude.json'), '{"numStartups":1}');
    writeFileSync(join(home, '.claude/settings.json'), '{\n  "model": "opus"\n}\n');
    expect((await cli(['setup', 'claude', '--proxy', PROXY], { env })).code).toBe(0);
    // Claude Code rewrites its state as it runs.
    const state = JSON.parse(read(home, '.claude.json'));
    writeFileSync(join(home, '.claude.json'), JSON.stringify({ ...state, numStartups: 2 }));
    writeFileSync(
      join(home, '.claude/settings.json'),
      read(home, '.claude/settings.json').replace('"opus"', '"sonnet"'),
    );
    expect((await cli(['setup', 'claude', '--undo'], { env })).code).toBe(0);
    expect(JSON.parse(read(home, '.claude.json'))).toEqual({ numStartups: 2 });
    expect(readJsonc(read(home, '.claude/settings.json'), 's')).toEqual({ model: 'sonnet' });
  });

  it('leaves a read-only file alone, with what to do, and writes nothing', async () => {
    const { home, files, env } = userHome();
    chmodSync(join(home, '.gemini/settings.json'), 0o444);
    const r = await cli(['setup', 'gemini'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/settings\.json is read-only \(mode 444\).*chmod u\+w/);
    expect(read(home, '.gemini/settings.json')).toBe(files['.gemini/settings.json']);
  });

  it('undo is this HOME’s alone, and restores only the files setup edits, from its own backups', async () => {
    const a = userHome();
    const b = userHome();
    const shared = join(a.home, 'shared-spillway');
    for (const u of [a, b])
      expect((await cli(['setup', 'gemini'], { env: { ...u.env, SPILLWAY_HOME: shared } })).code).toBe(0);
    expect(
      (await cli(['setup', 'gemini', '--undo'], { env: { ...a.env, SPILLWAY_HOME: shared } })).code,
    ).toBe(0);
    expect(read(a.home, '.gemini/settings.json')).toBe(a.files['.gemini/settings.json']);
    expect(read(b.home, '.gemini/settings.json')).toMatch(/hook gemini/);
    // A manifest edited to name another file (a command that could write spillway's folder once
    // could): undo refuses it, names what changed, and writes nothing.
    expect((await cli(['setup', 'codex'], { env: b.env })).code).toBe(0);
    const dir = join(b.home, '.spillway/setup');
    const [stateDir] = readdirSync(dir);
    const manifestFile = join(dir, stateDir as string, 'codex.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    const bashrc = join(b.home, '.bashrc');
    writeFileSync(bashrc, 'mine\n');
    writeFileSync(join(b.home, 'evil'), 'rm -rf ~\n');
    // Its hash of the file as it is now: undo would take it as setup's own and restore the "backup".
    const written = createHash('sha256').update('mine\n').digest('hex');
    manifest.files.push({ path: bashrc, existed: true, backup: join(b.home, 'evil'), written });
    writeFileSync(manifestFile, JSON.stringify(manifest));
    const config = read(b.home, '.codex/config.toml');
    const refused = await cli(['setup', 'codex', '--undo'], { env: b.env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /codex\.json changed since setup wrote it .*config\.toml.*Nothing was changed/,
    );
    expect(read(b.home, '.bashrc')).toBe('mine\n');
    expect(read(b.home, '.codex/config.toml')).toBe(config);
  });

  it('keeps the endpoint the shell exports or a .env names as the proxy’s upstream, and says what it cannot change', async () => {
    const upstreams = (home: string) => JSON.parse(read(home, '.spillway/upstreams.json'));
    // Claude Code: exported in the shell, none in settings.json.
    const a = userHome();
    const claude = await cli(['setup', 'claude', '--proxy', PROXY], {
      env: { ...a.env, ANTHROPIC_BASE_URL: 'https://gw.corp.test/anthropic' },
    });
    expect(claude.code, claude.stderr).toBe(0);
    expect(upstreams(a.home)).toEqual({ anthropic: 'https://gw.corp.test/anthropic' });
    // Gemini CLI: exported in the shell (it wins over ~/.gemini/.env in Gemini CLI): kept, and said.
    const gemini = await cli(['setup', 'gemini', '--proxy', PROXY], {
      env: { ...a.env, GOOGLE_GEMINI_BASE_URL: 'https://gw.corp.test/google' },
    });
    expect(gemini.stdout).toMatch(
      /Warning: GOOGLE_GEMINI_BASE_URL is exported in this shell \(https:\/\/gw\.corp\.test\/google\)/,
    );
    expect(upstreams(a.home)).toEqual({
      anthropic: 'https://gw.corp.test/anthropic',
      gemini: 'https://gw.corp.test/google',
    });
    // Gemini CLI: only in ~/.env (its loader's last resort for the home), quoted, with a comment.
    const b = userHome();
    writeFileSync(
      join(b.home, '.env'),
      'GEMINI_API_KEY=k\nGOOGLE_GEMINI_BASE_URL="https://home-env.test" # mine\n',
    );
    expect((await cli(['setup', 'gemini', '--proxy', PROXY], { env: b.env })).code).toBe(0);
    expect(upstreams(b.home)).toEqual({ gemini: 'https://home-env.test' });
    // Not an http(s) URL: nothing to forward to, nothing kept.
    const c = userHome();
    await cli(['setup', 'claude', '--proxy', PROXY], { env: { ...c.env, ANTHROPIC_BASE_URL: 'not a url' } });
    expect(() => read(c.home, '.spillway/upstreams.json')).toThrow();
  });

  it('the trust hash is the one Codex computes (codex-rs/hooks: sorted compact JSON, defaults filled)', async () => {
    const { codexTrustHash } = await import('./codex/setup.js');
    const { createHash } = await import('node:crypto');
    const json =
      '{"event_name":"post_tool_use","hooks":[{"async":false,"command":"x hook codex","timeout":600,"type":"command"}],"matcher":"Bash"}';
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

let proxyChild: ChildProcess | undefined;
/** `spillway proxy --port 0` as the user starts it (no upstream flags), in `env`; its URL. */
async function startCliProxyAt(env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [join(ROOT, 'dist/cli.js'), 'proxy', '--port', '0'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  proxyChild = child;
  return new Promise((done, fail) => {
    let out = '';
    child.on('exit', (code) => fail(new Error(`spillway proxy exited (${code})`)));
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /listening on (\S+)/.exec(out);
      if (m?.[1]) done(m[1]);
    });
  });
}
async function stopProxy(): Promise<void> {
  const child = proxyChild;
  if (!child || child.exitCode !== null) return;
  child.removeAllListeners('exit');
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

describe('spillway doctor', () => {
  it('checks every link and names the fix for each that fails', async () => {
    const { home, env } = userHome();
    const none = await cli(['doctor'], { env });
    expect(none.code).toBe(1);
    expect(none.stdout).toMatch(/No client is set up/);
    for (const client of ['claude', 'codex', 'gemini']) await cli(['setup', client], { env });
    const ok = await cli(['doctor'], { env });
    expect(ok.stdout).toMatch(/Everything checks out/);
    expect(
      ok.stdout.match(/✓ the (claude|codex|gemini) hook runs and leaves a small output as it is/g),
    ).toHaveLength(3);
    expect(ok.stdout).toMatch(/✓ spillway mcp answers initialize/);
    expect(ok.stdout).toMatch(/✓ tee -p \(GNU coreutils\) passes output on/);
    expect(ok.stdout).toMatch(
      /in Codex's sandbox \(its default; read-only and workspace-write\) nothing is captured/,
    );
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

  it('says when a project’s .env sends Gemini CLI around the proxy, in that folder', async () => {
    const { home, env } = userHome();
    expect((await cli(['setup', 'gemini', '--proxy', 'http://127.0.0.1:9'], { env })).code).toBe(0);
    const { doctor } = await import('./doctor.js');
    const { loadClient } = await import('./registry.js');
    const { spillwayCommand } = await import('./spillway-command.js');
    const gemini = await loadClient('gemini');
    const options = { home, env, spillway: spillwayCommand() };
    const project = join(home, 'work/app');
    mkdirSync(project, { recursive: true });
    const routing = async () =>
      (await doctor(gemini, options, project)).find((c) => /Gemini CLI started here/.test(c.what));
    expect((await routing())?.ok).toBe(true);
    writeFileSync(join(home, 'work/.env'), 'GEMINI_API_KEY=project-key\n');
    expect(await routing()).toMatchObject({
      ok: false,
      what: expect.stringMatching(
        /reads .*work\/\.env instead of ~\/\.gemini\/\.env: its requests bypass the proxy/,
      ),
      fix: `add GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9 to ${join(home, 'work/.env')}`,
    });
    writeFileSync(join(home, 'work/.env'), 'GEMINI_API_KEY=k\nGOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9\n');
    expect((await routing())?.ok).toBe(true);
  });

  it('keeps the gateway Claude Code was pointed at as the proxy’s upstream, and undo points it back', async () => {
    const { home, env } = userHome();
    const gatewayModel = await startScriptedModel(() => ({ kind: 'answer', text: 'from the gateway' }));
    const gateway = gatewayModel.url;
    const settings = `{\n  "env": { "ANTHROPIC_BASE_URL": "${gateway}" },\n  "model": "opus"\n}\n`;
    writeFileSync(join(home, '.claude/settings.json'), settings);
    const proxyUrl = 'http://127.0.0.1:4747';
    const r = await cli(['setup', 'claude', '--proxy', proxyUrl], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `Claude Code was pointed at ${gateway}: the proxy now sends its anthropic requests there`,
    );
    expect((readJsonc(read(home, '.claude/settings.json'), 's') as Json).env.ANTHROPIC_BASE_URL).toBe(
      proxyUrl,
    );
    expect(JSON.parse(read(home, '.spillway/upstreams.json'))).toEqual({ anthropic: gateway });
    // The proxy started as the user starts it forwards to the gateway, not to api.anthropic.com.
    const proxy = await startCliProxyAt(env);
    try {
      const answer = await fetch(`${proxy}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: 'claude-sonnet-4-5',
          max_tokens: 10,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
      expect(await answer.text()).toContain('from the gateway');
      expect(gatewayModel.seen.some((s) => s.url === '/v1/messages')).toBe(true);
    } finally {
      await stopProxy();
      await gatewayModel.close();
    }
    // Undo on a file the user changed since: only spillway's entries go, the gateway comes back.
    writeFileSync(
      join(home, '.claude/settings.json'),
      read(home, '.claude/settings.json').replace('"model": "opus"', '"model": "sonnet"'),
    );
    expect((await cli(['setup', 'claude', '--undo'], { env })).code).toBe(0);
    const after = readJsonc(read(home, '.claude/settings.json'), 's') as Json;
    expect(after.env.ANTHROPIC_BASE_URL).toBe(gateway);
    expect(after.model).toBe('sonnet');
    expect(() => read(home, '.spillway/upstreams.json')).toThrow();
  });

  it("says when Codex's shell commands do not read the capture, and how to make them", async () => {
    const { home, env } = userHome();
    writeFileSync(join(home, '.codex/config.toml'), '[shell_environment_policy]\ninherit = "core"\n');
    expect((await cli(['setup', 'codex'], { env })).code).toBe(0);
    const r = await cli(['doctor', 'codex'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /✗ Codex's shell commands do not read spillway's capture.*Codex's own cut stands\n\s+fix: add BASH_ENV = ".*spillway\/capture\.bash" under \[shell_environment_policy\.set\]/,
    );
  });
});
