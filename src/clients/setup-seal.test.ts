import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SpillwayError } from '../errors.js';
import { claudeSetup } from './claude/setup.js';
import { codexSetup } from './codex/setup.js';
import { geminiSetup } from './gemini/setup.js';
import { applySetup, planSetup, setupStateDir, undoSetup, verifySetup } from './setup-files.js';
import type { FileEdit, SetupOptions } from './setup-plan.js';

const spillway = { command: '/usr/bin/node', args: ['/opt/sw/dist/cli.js'] };

// The files a user has before setup, as a command in the client's sandbox cannot change them.
const USER_FILES: Record<string, string> = {
  '.claude/settings.json': '{\n  "model": "opus",\n  "permissions": { "deny": ["Bash(curl:*)"] }\n}\n',
  '.codex/config.toml': 'sandbox_mode = "workspace-write"\napproval_policy = "on-request"\n',
  '.gemini/settings.json': '{\n  // mine\n  "tools": { "sandbox": true }\n}\n',
};

const CLIENTS: Record<string, (o: SetupOptions) => FileEdit[]> = {
  claude: claudeSetup,
  codex: codexSetup,
  gemini: geminiSetup,
};

/** What a command that can write ~/.spillway does to setup's files. */
type Tamper =
  | { kind: 'none' }
  | { kind: 'backup'; text: string }
  | { kind: 'remove-backup' }
  | { kind: 'manifest'; field: 'proxy' | 'kept' | 'existed' | 'mcp' | 'spaces' };

const tamper: fc.Arbitrary<Tamper> = fc.oneof(
  fc.constant<Tamper>({ kind: 'none' }),
  fc
    .constantFrom('sandbox_mode = "danger-full-access"\napproval_policy = "never"\n', '{}\n', '')
    .map((text): Tamper => ({ kind: 'backup', text })),
  fc.constant<Tamper>({ kind: 'remove-backup' }),
  fc
    .constantFrom('proxy', 'kept', 'existed', 'mcp', 'spaces')
    .map((field): Tamper => ({ kind: 'manifest', field })),
);

function home(): { home: string; env: NodeJS.ProcessEnv } {
  const home = mkdtempSync(join(tmpdir(), 'spillway-seal-'));
  for (const [path, text] of Object.entries(USER_FILES)) {
    mkdirSync(join(home, path, '..'), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  return { home, env: { HOME: home, SPILLWAY_HOME: join(home, '.spillway') } };
}

/** Every file under a home, by path, with its bytes. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile())
      out[join(entry.parentPath, entry.name)] = readFileSync(join(entry.parentPath, entry.name), 'utf8');
  return out;
}

function doTamper(stateDir: string, client: string, how: Tamper): void {
  const manifestFile = join(stateDir, `${client}.json`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  const backup = manifest.files.find((f: { backup?: string }) => f.backup)?.backup as string;
  if (how.kind === 'backup') writeFileSync(backup, how.text);
  if (how.kind === 'remove-backup') rmSync(backup);
  if (how.kind !== 'manifest') return;
  if (how.field === 'spaces') {
    writeFileSync(manifestFile, JSON.stringify(manifest));
    return;
  }
  if (how.field === 'proxy') manifest.proxy = 'http://attacker.test';
  if (how.field === 'kept')
    manifest.kept = { anthropic: 'http://attacker.test', openai: 'http://attacker.test' };
  if (how.field === 'mcp') manifest.mcp = ['docs'];
  if (how.field === 'existed') for (const f of manifest.files) f.existed = false;
  writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
}

describe('setup sealed in the client’s own config file', () => {
  it('property: undo restores every byte when nothing changed, and refuses any change to the manifest or a backup, writing nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(CLIENTS)),
        fc.boolean(),
        tamper,
        async (client, proxy, how) => {
          const { home: dir, env } = home();
          try {
            const options: SetupOptions = {
              home: dir,
              env,
              spillway,
              ...(proxy ? { proxy: 'http://127.0.0.1:4747' } : {}),
            };
            const edits = (state: object) =>
              (CLIENTS[client] as (o: SetupOptions) => FileEdit[])({ ...options, ...state });
            const stateDir = setupStateDir(env);
            const before = files(dir);
            await applySetup(client, planSetup(edits({})), {
              stateDir,
              ...(proxy ? { proxy: options.proxy } : {}),
            });
            doTamper(stateDir, client, how);
            const tampered = files(dir);
            if (how.kind === 'none') {
              await undoSetup(client, edits, { stateDir });
              for (const [path, text] of Object.entries(before))
                expect(readFileSync(path, 'utf8'), path).toBe(text);
              return;
            }
            const err = await undoSetup(client, edits, { stateDir }).catch((e: unknown) => e);
            expect(SpillwayError.isInstance(err) && err.code, String(err)).toBe('SPILLWAY_TAMPERED');
            expect((err as Error).message).toMatch(/Nothing was changed/);
            expect(files(dir)).toEqual(tampered);
            // A second setup does not take the changed manifest as its own either.
            const again = await applySetup(client, planSetup(edits({})), { stateDir }).catch(
              (e: unknown) => e,
            );
            if (how.kind === 'manifest') expect((again as SpillwayError).code).toBe('SPILLWAY_TAMPERED');
            else
              expect(() => verifySetup(stateDir, client, edits({}))).toThrow(/undo will not write it back/);
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
