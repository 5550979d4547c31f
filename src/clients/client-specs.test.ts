import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../test-support/cli.js';
import { buildCli } from '../test-support/real-clients.js';
import { CLIENT_KEYS, loadClients } from './registry.js';
import { planSetup } from './setup-files.js';
import { spillwayCommand } from './spillway-command.js';

// One test per client, derived from its spec alone: a client added as a folder gets these
// without a line here.

const SPECS = await loadClients();
const homes: string[] = [];
afterAll(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

// The doctor's hook check runs the built CLI.
beforeAll(() => buildCli(), 120_000);

function home() {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-spec-'));
  homes.push(dir);
  return { dir, env: { HOME: dir, SPILLWAY_HOME: join(dir, '.spillway') } };
}

/** Every file under `dir` but spillway's own folder, with its bytes. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && !relative(dir, path).startsWith('.spillway'))
      out[relative(dir, path)] = readFileSync(path, 'latin1');
  }
  return out;
}

/** A user's own content for a file of the kind setup edits, in that file's form (CRLF, comments). */
const USER_TEXT: Record<string, string> = {
  '.json': '{\r\n  // mine\r\n  "mine": { "n": 12345678901234567891, "x": 1.50 }\r\n}\r\n',
  '.jsonc': '{\n  // mine\n  "mine": true,\n}\n',
  '.toml': '# mine\r\nmine = """\r\n[not a table]\r\n"""\r\n\r\n[tools]\r\nweb = true\r\n',
  '.env': 'MINE=1\n',
};

it('knows exactly the clients that have a folder here', () => {
  const folders = readdirSync(import.meta.dirname, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(import.meta.dirname, e.name, 'index.ts')))
    .map((e) => e.name)
    .sort();
  expect([...CLIENT_KEYS].sort()).toEqual(folders);
  expect(SPECS.map((s) => s.key)).toEqual([...CLIENT_KEYS]);
});

describe.each(SPECS)('$name, from its spec', (spec) => {
  it('setup then undo leaves a home without the client exactly as it was', async () => {
    const { dir, env } = home();
    expect((await cli(['setup', spec.key], { env })).code).toBe(0);
    expect(Object.keys(files(dir)).length, 'setup wrote the client’s files').toBeGreaterThan(0);
    const undo = await cli(['setup', spec.key, '--undo'], { env });
    expect(undo.code, undo.stderr).toBe(0);
    expect(files(dir)).toEqual({});
  });

  it("keeps the user's own files byte for byte through setup (twice, with a proxy) and undo", async () => {
    const { dir, env } = home();
    const options = { home: dir, env, spillway: spillwayCommand(), proxy: 'http://127.0.0.1:4747' };
    // Each file setup edits, written first as the user has it.
    for (const file of planSetup((await spec.setup()).edits(options))) {
      const text = USER_TEXT[extname(file.path)];
      if (text === undefined || file.path.startsWith(env.SPILLWAY_HOME)) continue;
      mkdirSync(join(file.path, '..'), { recursive: true });
      writeFileSync(file.path, text);
    }
    const before = files(dir);
    expect((await cli(['setup', spec.key, '--proxy', 'http://127.0.0.1:4747'], { env })).code).toBe(0);
    const once = files(dir);
    expect((await cli(['setup', spec.key], { env })).code).toBe(0);
    expect(files(dir), 'a second setup (its proxy kept) writes the same bytes').toEqual(once);
    expect((await cli(['setup', spec.key, '--undo'], { env })).code).toBe(0);
    expect(files(dir)).toEqual(before);
  });

  it('doctor finds every link in place right after setup', async () => {
    const { env } = home();
    expect((await cli(['setup', spec.key], { env })).code).toBe(0);
    const r = await cli(['doctor', spec.key], { env });
    expect(r.stdout).toContain(`✓ the ${spec.key} hook runs and leaves a small output as it is`);
    expect(r.stdout).not.toMatch(/no longer has what setup wrote/);
  }, 30_000);

  it('its hook leaves a small output alone', async () => {
    const hook = await spec.hook();
    const store = () => Promise.reject(new Error('a small output needs no store'));
    expect(await hook(spec.probe, { env: {}, spillway: spillwayCommand(), store })).toBeUndefined();
  });

  it('is named in the help of setup, hook and doctor', async () => {
    const setup = await cli(['setup', '--help']);
    // A row of its own: the key, two spaces at least (the list is aligned to its longest key).
    const row = (text: string) => new RegExp(`^  ${spec.key} {2,}${text}`, 'm');
    const escaped = `${spec.name} cuts at ${spec.limit}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(setup.stdout).toMatch(row(escaped));
    expect((await cli(['hook', '--help'])).stdout).toMatch(row('\\S'));
    expect((await cli(['doctor', '--help'])).stdout).toContain(spec.key);
  });
});
