import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codexSetup } from './codex/setup.js';
import { readJsonc, readToml } from './config-text.js';
import { geminiSetup } from './gemini/setup.js';
import { loadClients } from './registry.js';
import type { FileEdit } from './setup-plan.js';

const spillway = { command: '/usr/bin/node', args: ['/opt/sw/dist/cli.js'] };

// A user's config.toml as people write them: comments, keys of every form, multi-line strings
// and arrays (with lines inside that look like comments, tables or spillway's own markers),
// dotted keys, inline tables, tables of their own, a model_provider of their own.
const topLine = fc.oneof(
  fc.constant('# my settings'),
  fc.constant('model = "o3" # fast'),
  fc.constant('model_provider = "azure"'),
  fc.constant('approval_policy = "on-request"'),
  fc.constant('notify = [\n  "notify-send",\n  # a comment inside an array\n  "done",\n]'),
  fc.constant('instructions = """\nkeep [not.a.table] as text\n# not a comment\n# <<< spillway setup\n"""'),
  fc.constant("developer_instructions = '''\nliteral \\n\n'''"),
  fc.constant('tui.theme = "dark"'),
  fc.constant('history = { persistence = "save-all", max_bytes = 1000 }'),
  fc.constant(''),
);
const table = fc.oneof(
  fc.constant(
    '[model_providers.azure]\nname = "Azure"\nbase_url = "https://x.test/v1"\nenv_key = "AZURE_KEY"',
  ),
  fc.constant(
    '[mcp_servers.files]\ncommand = "npx"\nnote = """\nargs = not a key, a line of text\ncommand = nor this\n"""\nargs = [\n  "-y",\n  "server-files",\n]',
  ),
  fc.constant('[projects."/home/me/work"]\ntrust_level = "trusted"'),
  fc.constant('# trailing comment'),
);
const config = fc
  .record({
    top: fc.uniqueArray(topLine, { maxLength: 6 }),
    tables: fc.uniqueArray(table, { maxLength: 3 }),
    crlf: fc.boolean(),
    bom: fc.boolean(),
    end: fc.constantFrom('', '\n', '\n\n'),
  })
  .map(({ top, tables, crlf, bom, end }) => {
    const text = [...top, ...tables].join('\n').replace(/\n*$/, '') + (top.length + tables.length ? end : '');
    return (bom ? '\uFEFF' : '') + (crlf ? text.replaceAll('\n', '\r\n') : text);
  })
  .filter((text) => {
    try {
      readToml(text.replace(/^\uFEFF/, ''), 'config.toml');
      return true;
    } catch {
      return false;
    }
  });

const editOf = (edits: FileEdit[], name: string) => edits.find((e) => e.path.endsWith(name)) as FileEdit;

describe('setup and undo on any config a user has', () => {
  it('property: Codex config.toml: setup keeps every line and the file form, parses, and undo gives it back byte for byte', () => {
    fc.assert(
      fc.property(config, fc.boolean(), fc.boolean(), (text, proxy, mcp) => {
        const edits = codexSetup({
          home: '/home/u',
          env: { HOME: '/home/u' },
          spillway,
          ...(proxy ? { proxy: 'http://127.0.0.1:4747' } : {}),
          ...(mcp && text.includes('[mcp_servers.files]') ? { mcp: ['files'] } : {}),
        });
        const edit = editOf(edits, 'config.toml');
        const after = edit.add(text, () => '');
        const parsed = readToml(after.replace(/^\uFEFF/, ''), 'config.toml') as {
          mcp_servers?: Record<string, { note?: string; args?: string[] }>;
        };
        const files = parsed.mcp_servers?.files;
        if (files)
          expect(files.note?.replaceAll('\r\n', '\n')).toBe(
            'args = not a key, a line of text\ncommand = nor this\n',
          );
        if (files && mcp) expect(files.args).toContain('gateway');
        expect(after.startsWith('\uFEFF')).toBe(text.startsWith('\uFEFF'));
        if (text.includes('\r\n')) expect(after.replace(/\r\n/g, '')).not.toContain('\n');
        // Every line of the user's is still there, as it was or switched off by setup.
        const lines = after.replace(/^\uFEFF/, '').split(/\r?\n/);
        for (const line of text.replace(/^\uFEFF/, '').split(/\r?\n/))
          if (line !== '')
            expect(
              lines.some((l) => l === line || l === `# (spillway setup) ${line}`),
              line,
            ).toBe(true);
        expect(edit.remove(after)).toBe(text);
        expect(edit.add(after, () => '')).toBe(after); // twice is once
      }),
      { numRuns: 300 },
    );
  });

  it('property: Gemini CLI .env: setup and undo give the file back byte for byte', () => {
    const env = fc
      .record({
        lines: fc.array(fc.constantFrom('GEMINI_API_KEY=x', '# mine', 'export FOO="a b"', ''), {
          maxLength: 5,
        }),
        crlf: fc.boolean(),
        end: fc.constantFrom('', '\n'),
      })
      .map(({ lines, crlf, end }) => {
        const text = lines.length ? lines.join('\n') + end : '';
        return crlf ? text.replaceAll('\n', '\r\n') : text;
      });
    fc.assert(
      fc.property(env, (text) => {
        const edit = editOf(
          geminiSetup({
            home: '/home/u',
            env: { HOME: '/home/u' },
            spillway,
            proxy: 'http://127.0.0.1:4747',
          }),
          '.env',
        );
        const after = edit.add(text, () => '');
        expect(after).toContain('GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:4747');
        expect(edit.remove(after)).toBe(text);
      }),
      { numRuns: 200 },
    );
  });
});

// A user's JSON settings as people keep them: comments, CRLF, numbers JavaScript cannot hold
// (kept as written), hooks, env, servers and providers of their own, a trailing comma.
const jsonEntry = fc.constantFrom(
  '"model": "opus"',
  '// mine\n  "big": 12345678901234567891',
  '"price": 1.50',
  '"hooks": { "PostToolUse": [{ "matcher": "Edit", "hooks": [{ "type": "command", "command": "prettier" }] }] }',
  '"env": { "OTHER": "1" }',
  '"mcpServers": { "docs": { "command": "docs-server", "args": [] } }',
  '"mcp": { "docs": { "type": "local", "command": ["docs-server"] } }',
  '"provider": { "anthropic": { "options": { "timeout": 5 } } }',
);
const jsonConfig = fc
  .record({ entries: fc.uniqueArray(jsonEntry, { maxLength: 6 }), crlf: fc.boolean(), comma: fc.boolean() })
  .map(({ entries, crlf, comma }) => {
    const text = entries.length ? `{\n  ${entries.join(',\n  ')}${comma ? ',' : ''}\n}\n` : '{}\n';
    return crlf ? text.replaceAll('\n', '\r\n') : text;
  });

describe.each(await loadClients())('$name: every JSON file setup edits', (spec) => {
  it('property: setup keeps every value and comment of the user in its form; removing spillway’s entries gives back the same settings', async () => {
    const { edits } = await spec.setup();
    fc.assert(
      fc.property(jsonConfig, fc.boolean(), (text, proxy) => {
        const options = {
          home: '/home/u',
          env: { HOME: '/home/u' },
          spillway,
          ...(proxy ? { proxy: 'http://127.0.0.1:4747' } : {}),
        };
        for (const edit of edits(options)) {
          if (!/\.jsonc?$/.test(edit.path) || edit.path.includes('/.spillway/')) continue;
          const after = edit.add(text, () => '');
          readJsonc(after, edit.path);
          for (const token of ['12345678901234567891', '1.50', '// mine', '"prettier"', '"docs-server"'])
            if (text.includes(token)) expect(after, token).toContain(token);
          if (text.includes('\r\n')) expect(after.replace(/\r\n/g, '')).not.toContain('\n');
          expect(readJsonc(edit.remove(after, text), edit.path)).toEqual(readJsonc(text, edit.path));
        }
      }),
      { numRuns: 150 },
    );
  });
});
