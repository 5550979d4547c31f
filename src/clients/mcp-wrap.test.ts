import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cli } from '../test-support/cli.js';
import { readJsonc } from './config-text.js';
import { unwrapServer, wrapServer } from './mcp-wrap.js';

const spillway = { command: '/usr/bin/node', args: ['/opt/sw/dist/cli.js'] };

describe('wrapping an MCP server in spillway gateway', () => {
  it('runs the same command behind the gateway, keeps the other fields, and unwraps to what it was', () => {
    const entry = {
      type: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'],
      env: { A: '1' },
    };
    const w = wrapServer(entry, spillway);
    expect(w).toEqual({
      type: 'stdio',
      command: '/usr/bin/node',
      args: [
        '/opt/sw/dist/cli.js',
        'gateway',
        '--no-expand',
        '--',
        'npx',
        '-y',
        '@modelcontextprotocol/server-filesystem',
        '/srv',
      ],
      env: { A: '1' },
    });
    expect(wrapServer(w, spillway)).toBe(w);
    expect(unwrapServer(w)).toEqual(entry);
    // Another installation of spillway (it moved since setup) unwraps too.
    expect(
      unwrapServer({ ...w, command: '/home/me/.local/bin/spillway', args: (w.args as string[]).slice(1) }),
    ).toEqual(entry);
    // An HTTP server and a server of someone else's are left as they are.
    const http = { type: 'http', url: 'https://x.test/mcp' };
    expect(wrapServer(http, spillway)).toBe(http);
    const other = { command: 'gateway-tool', args: ['gateway', '--', 'x'] };
    expect(unwrapServer(other)).toBe(other);
  });

  it('property: unwrap(wrap(entry)) is the entry, whatever its arguments', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.array(fc.string()), (command, args) => {
        expect(unwrapServer(wrapServer({ command, args }, spillway))).toEqual({ command, args });
      }),
    );
  });
});

describe('spillway setup --mcp', () => {
  it('wraps the named servers of Claude Code (user and local) and Gemini CLI, says which names it lacks, and undo unwraps them', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const home = mkdtempSync(join(tmpdir(), 'spillway-setup-mcp-'));
    mkdirSync(join(home, '.gemini'));
    const claudeState = {
      numStartups: 3,
      mcpServers: { docs: { type: 'stdio', command: 'docs-server', args: [] } },
      projects: {
        '/srv/app': {
          mcpServers: { files: { type: 'stdio', command: 'npx', args: ['-y', 'fs', '/srv/app'], env: {} } },
        },
      },
    };
    writeFileSync(join(home, '.claude.json'), JSON.stringify(claudeState));
    writeFileSync(
      join(home, '.gemini/settings.json'),
      JSON.stringify({ mcpServers: { files: { command: 'fs', args: ['/srv'] } } }),
    );
    const env = { HOME: home, SPILLWAY_HOME: join(home, '.spillway') };
    const missing = await cli(['setup', 'claude', '--mcp', 'fils'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no MCP server named "fils"');
    expect(missing.stderr).toContain('it has: docs, files');
    const r = await cli(['setup', 'claude', '--mcp', 'files'], { env });
    expect(r.code, r.stderr).toBe(0);
    const state = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8'));
    const files = state.projects['/srv/app'].mcpServers.files;
    expect(files.args.slice(-7)).toEqual(['gateway', '--no-expand', '--', 'npx', '-y', 'fs', '/srv/app']);
    expect(state.mcpServers.docs).toEqual(claudeState.mcpServers.docs);
    // Claude Code rewrites its state file all the time: undo then takes out only spillway's.
    writeFileSync(join(home, '.claude.json'), JSON.stringify({ ...state, numStartups: 4 }));
    expect((await cli(['setup', 'claude', '--undo'], { env })).code).toBe(0);
    const undone = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8'));
    expect(undone).toEqual({ ...claudeState, numStartups: 4 });
    const g = await cli(['setup', 'gemini', '--mcp', 'all'], { env });
    expect(g.code, g.stderr).toBe(0);
    // Gemini CLI reads its settings as JSON with comments (setup's seal is one).
    const settings = join(home, '.gemini/settings.json');
    const gemini = readJsonc(readFileSync(settings, 'utf8'), settings) as {
      mcpServers: { files: { args: string[] } };
    };
    expect(gemini.mcpServers.files.args.slice(-3)).toEqual(['--', 'fs', '/srv']);
  });

  it('never unwraps a server the user runs through the gateway by hand, with --mcp all or after the file changed', async () => {
    const { mkdtempSync, writeFileSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const home = mkdtempSync(join(tmpdir(), 'spillway-setup-mine-'));
    const mine = {
      type: 'stdio',
      command: 'spillway',
      args: ['gateway', '--max-tokens', '900', '--', 'my-server'],
    };
    const claudeState = {
      numStartups: 3,
      mcpServers: { mine, docs: { type: 'stdio', command: 'docs-server', args: [] } },
    };
    writeFileSync(join(home, '.claude.json'), JSON.stringify(claudeState));
    const env = { HOME: home, SPILLWAY_HOME: join(home, '.spillway') };
    const r = await cli(['setup', 'claude', '--mcp', 'all'], { env });
    expect(r.code, r.stderr).toBe(0);
    const state = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8'));
    expect(state.mcpServers.mine).toEqual(mine);
    expect(state.mcpServers.docs.args.slice(-3)).toEqual(['--no-expand', '--', 'docs-server']);
    // Setting up again (no --mcp) keeps docs wrapped; Claude Code changes the file; undo.
    expect((await cli(['setup', 'claude'], { env })).code).toBe(0);
    const again = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8'));
    expect(again.mcpServers.docs).toEqual(state.mcpServers.docs);
    writeFileSync(join(home, '.claude.json'), JSON.stringify({ ...again, numStartups: 9 }));
    expect((await cli(['setup', 'claude', '--undo'], { env })).code).toBe(0);
    const undone = JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8'));
    expect(undone).toEqual({ ...claudeState, numStartups: 9 });
  });

  it("wraps Codex's servers in config.toml in place (a multi-line args array too), and undo gives back the table", async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { readToml } = await import('./config-text.js');
    const home = mkdtempSync(join(tmpdir(), 'spillway-setup-mcp-'));
    mkdirSync(join(home, '.codex'));
    const config = [
      'model = "o3"',
      '',
      '[mcp_servers.files] # the project files',
      'command = "npx"',
      'args = [',
      '  "-y",',
      '  "@modelcontextprotocol/server-filesystem", # pinned later',
      '  "/srv/app",',
      ']',
      'env = { LOG = "1" }',
      '',
      '[mcp_servers."web-search"]',
      'url = "https://search.test/mcp"',
      '',
    ].join('\n');
    const path = join(home, '.codex/config.toml');
    writeFileSync(path, config);
    const env = { HOME: home, SPILLWAY_HOME: join(home, '.spillway') };
    expect((await cli(['setup', 'codex', '--mcp', 'fils'], { env })).stderr).toContain(
      'it has: files, web-search',
    );
    const r = await cli(['setup', 'codex', '--mcp', 'all'], { env });
    expect(r.code, r.stderr).toBe(0);
    const parsed = readToml(readFileSync(path, 'utf8'), path) as Record<
      string,
      Record<string, Record<string, unknown>>
    >;
    const files = parsed.mcp_servers?.files as { args: string[]; env: unknown };
    expect(files.args.slice(files.args.indexOf('gateway'))).toEqual([
      'gateway',
      '--no-expand',
      '--',
      'npx',
      '-y',
      '@modelcontextprotocol/server-filesystem',
      '/srv/app',
    ]);
    expect(files.env).toEqual({ LOG: '1' });
    expect(parsed.mcp_servers?.['web-search']).toEqual({ url: 'https://search.test/mcp' });
    expect((await cli(['setup', 'codex', '--undo'], { env })).code).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe(config);
    // Changed since by the user: undo still gives back their table, and keeps the change.
    expect((await cli(['setup', 'codex', '--mcp', 'files'], { env })).code).toBe(0);
    writeFileSync(path, readFileSync(path, 'utf8').replace('model = "o3"', 'model = "o4"'));
    expect((await cli(['setup', 'codex', '--undo'], { env })).code).toBe(0);
    // (Setup's own block at the end leaves the blank line before it.)
    expect(readFileSync(path, 'utf8').trimEnd()).toBe(
      config.replace('model = "o3"', 'model = "o4"').trimEnd(),
    );
  });
});
