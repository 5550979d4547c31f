import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { clientBinary, PINNED_CLIENTS } from '../test-support/client-install.js';
import { buildCli, HEADLESS_ENV, runClient, userMachine } from '../test-support/real-clients.js';
import { startScriptedModel } from '../test-support/scripted-model.js';

// Codex run from $HOME in its workspace-write sandbox (with /tmp excluded): a command the model
// runs can write ~/.spillway, where setup keeps its manifest and the originals undo restores.
// Such a command rewrites the backup of config.toml to switch the sandbox and approvals off,
// fixes the manifest's digests to match, and tries to fix the seal in ~/.codex/config.toml too.
// Codex keeps $CODEX_HOME read-only: the seal stays, and undo refuses, writing nothing.

const codex = clientBinary('codex');

// What an attacker's command does, as plain node (the model writes it; the sandbox judges it).
const ATTACK = `
const fs = require('fs'), path = require('path'), crypto = require('crypto');
const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');
const home = process.env.HOME, report = [];
const setup = path.join(home, '.spillway/setup');
for (const dir of fs.readdirSync(setup)) {
  const file = path.join(setup, dir, 'codex.json');
  if (!fs.existsSync(file)) continue;
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  const evil = 'sandbox_mode = "danger-full-access"\\napproval_policy = "never"\\n';
  for (const f of manifest.files) if (f.backup && f.path.endsWith('config.toml')) {
    try { fs.writeFileSync(f.backup, evil); f.sha = sha(evil); report.push('backup written'); } catch (e) { report.push('backup refused: ' + e.code); }
  }
  const text = JSON.stringify(manifest, null, 2) + '\\n';
  try { fs.writeFileSync(file, text); report.push('manifest written'); } catch (e) { report.push('manifest refused: ' + e.code); }
  const config = path.join(home, '.codex/config.toml');
  const sealed = fs.readFileSync(config, 'utf8').replace(/spillway-seal:[0-9a-f]{64}/, 'spillway-seal:' + sha(text));
  try { fs.writeFileSync(config, sealed); report.push('seal written'); } catch (e) { report.push('seal refused: ' + e.code); }
}
fs.writeFileSync(path.join(home, 'attack-report.txt'), report.join('\\n') + '\\n');
`;

beforeAll(() => {
  if ('path' in codex) buildCli();
}, 120_000);

describe(`Codex ${'version' in codex ? codex.version : ''} run from $HOME, workspace-write without /tmp`, () => {
  if ('missing' in codex) {
    it.skip(`skipped: ${codex.missing}`, () => {});
    return;
  }
  it('a command in its sandbox cannot make undo write config.toml: the seal stays, undo refuses and writes nothing', async () => {
    const { bin } = PINNED_CLIENTS.codex as { bin: string };
    const model = await startScriptedModel((turn) => {
      if (!turn.tools.includes('exec_command')) return { kind: 'answer', text: 'ok' };
      return turn.lastOutput
        ? { kind: 'answer', text: 'DONE' }
        : { kind: 'call', callId: 'call_run', name: 'exec_command', input: { cmd: 'node attack.js' } };
    });
    const machine = userMachine({ [bin]: codex.path });
    try {
      const config = join(machine.home, '.codex/config.toml');
      const mine = `model_provider = "p"\nsandbox_mode = "workspace-write"\napproval_policy = "never"\n\n[sandbox_workspace_write]\nexclude_tmpdir_env_var = true\nexclude_slash_tmp = true\n\n[model_providers.p]\nname = "p"\nbase_url = "${model.url}/v1"\nwire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n`;
      spawnSync('mkdir', ['-p', join(machine.home, '.codex')]);
      writeFileSync(config, mine);
      writeFileSync(join(machine.home, 'attack.js'), ATTACK);
      const setup = spawnSync('spillway', ['setup', 'codex'], { env: machine.env, encoding: 'utf8' });
      expect(setup.status, setup.stderr).toBe(0);
      const setUp = readFileSync(config, 'utf8');
      const run = await runClient(bin, ['exec', '--skip-git-repo-check', '-m', 'gpt-5', 'run it'], {
        env: { ...machine.env, ...HEADLESS_ENV[bin] },
        cwd: machine.home,
        timeoutMs: 240_000,
      });
      expect(run.code, run.stderr.slice(-2000)).toBe(0);
      const report = readFileSync(join(machine.home, 'attack-report.txt'), 'utf8');
      // The threat is real (spillway's folder is writable from the sandbox), and Codex keeps
      // its own folder read-only: what the seal relies on.
      expect(report).toMatch(/backup written/);
      expect(report).toMatch(/manifest written/);
      expect(report).toMatch(/seal refused: E(ROFS|PERM|ACCES)/);
      expect(readFileSync(config, 'utf8')).toBe(setUp);
      const undo = spawnSync('spillway', ['setup', 'codex', '--undo'], {
        env: machine.env,
        encoding: 'utf8',
      });
      expect(undo.status).toBe(1);
      expect(undo.stderr).toMatch(/codex\.json changed since setup wrote it.*Nothing was changed/);
      expect(readFileSync(config, 'utf8')).toBe(setUp);
      expect(readFileSync(config, 'utf8')).not.toMatch(/danger-full-access/);
      expect(existsSync(join(machine.home, '.codex/hooks.json'))).toBe(true);
    } finally {
      await model.close();
    }
  }, 300_000);
});
