import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultBase } from '../home/index.js';
import { recallTokenPath } from '../store/recall/index.js';
import { type Check, runShell } from './client-checks.js';
import type { ClientSpec } from './client-spec.js';
import {
  leavesAsItIs,
  planSetup,
  readSetup,
  type SetupState,
  sealHolder,
  setupStateDir,
  verifySetup,
} from './setup-files.js';
import type { FileEdit, SetupOptions } from './setup-plan.js';
import { spillwayShell } from './spillway-command.js';

/** Starts `spillway mcp` as a client would and times its answer to `initialize`. */
async function checkMcp(options: SetupOptions): Promise<Check> {
  const started = Date.now();
  const init = `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'spillway-doctor', version: '1' } } })}\n`;
  return new Promise<Check>((resolve) => {
    const child = spawn(options.spillway.command, [...options.spillway.args, 'mcp'], {
      env: options.env,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let out = '';
    const done = (check: Check) => {
      clearTimeout(timer);
      child.kill();
      resolve(check);
    };
    const timer = setTimeout(
      () =>
        done({
          ok: false,
          what: 'spillway mcp did not answer initialize within 10 s',
          fix: 'run "spillway mcp" by hand to see its error',
        }),
      10_000,
    );
    child.on('error', (err) =>
      done({ ok: false, what: `spillway mcp does not start: ${err.message}`, fix: 'reinstall spillway' }),
    );
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (out.includes('"id":1'))
        done({ ok: true, what: `spillway mcp answers initialize (${Date.now() - started} ms)` });
    });
    child.stdin.end(init);
  });
}

/** The store the hooks and `spillway run` stash into: there, writable, private. */
function checkStore(env: NodeJS.ProcessEnv): Check {
  const base = defaultBase(env);
  try {
    mkdirSync(base, { recursive: true, mode: 0o700 });
    const probe = join(base, `.doctor-${process.pid}`);
    writeFileSync(probe, 'ok', { mode: 0o600 });
    rmSync(probe);
    const mode = statSync(base).mode & 0o777;
    if (mode & 0o077)
      return {
        ok: false,
        what: `the store ${base} can be read by other users (mode ${mode.toString(8)})`,
        fix: `chmod 700 ${base}`,
      };
    return { ok: true, what: `the store ${base} is writable and private` };
  } catch (err) {
    return {
      ok: false,
      what: `the store ${base} is not writable: ${(err as Error).message}`,
      fix: 'set SPILLWAY_HOME to a folder you own',
    };
  }
}

/** The recall token (for /expand and /mcp over HTTP): absent is fine, readable by others is not. */
function checkToken(env: NodeJS.ProcessEnv): Check | undefined {
  const path = recallTokenPath(env);
  if (!existsSync(path)) return undefined;
  const st = statSync(path);
  if ((process.getuid && st.uid !== process.getuid()) || st.mode & 0o077)
    return {
      ok: false,
      what: `the recall token ${path} is not yours alone (mode ${(st.mode & 0o777).toString(8)})`,
      fix: `rm ${path} (the proxy makes a new one)`,
    };
  return { ok: true, what: `the recall token ${path} is private` };
}

async function checkProxy(url: string): Promise<Check> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(3000) });
    if (res.ok) return { ok: true, what: `the proxy answers at ${url}` };
    return {
      ok: false,
      what: `the proxy at ${url} answered ${res.status}`,
      fix: 'is another program on that port?',
    };
  } catch {
    return {
      ok: false,
      what: `no proxy answers at ${url} (the client's model requests go there)`,
      fix: `start it: spillway proxy --port ${new URL(url).port || 80}, or run setup again without --proxy`,
    };
  }
}

/** Whether setup's manifest still matches the seal kept in the client's own config file. */
function sealCheck(client: string, edits: FileEdit[], env: NodeJS.ProcessEnv): Check {
  const holder = sealHolder(edits);
  if (holder === undefined)
    return { ok: true, what: `setup's backups (${client} has no sandbox to guard them from)` };
  try {
    verifySetup(setupStateDir(env), client, edits);
    return { ok: true, what: `setup's manifest and backups match the seal in ${holder}` };
  } catch (err) {
    return { ok: false, what: (err as Error).message, fix: 'see what changed before you run undo' };
  }
}

/**
 * Checks every link between a client and spillway: setup's entries still in the client's
 * files, the hook command runs from a shell and answers right, `spillway mcp` answers, the
 * store is writable, the recall token is private, the proxy (when setup named one) answers. Each failure carries its fix.
 *
 * @example
 * for (const c of await doctor(await loadClient('codex'), options)) console.log(c.ok ? '✓' : '✗', c.what);
 */
export async function doctor(spec: ClientSpec, options: SetupOptions, cwd = process.cwd()): Promise<Check[]> {
  const client = spec.key;
  const state = readSetup(setupStateDir(options.env), client);
  if (!state)
    return [{ ok: false, what: `${spec.name} is not set up for spillway`, fix: `spillway setup ${client}` }];
  const checks: Check[] = [];
  const cli = options.spillway.args[0] ?? '';
  try {
    accessSync(options.spillway.command, constants.X_OK);
    checks.push(
      existsSync(cli)
        ? {
            ok: true,
            what: `hooks and MCP start spillway as ${spillwayShell(options.spillway, [])} (no PATH needed)`,
          }
        : { ok: false, what: `${cli} is missing`, fix: 'reinstall spillway, then run setup again' },
    );
  } catch {
    checks.push({
      ok: false,
      what: `${options.spillway.command} is not executable`,
      fix: 'run setup again with the node you use',
    });
  }
  // Planned as setup ran it (its proxy, the servers it wrapped): anything else would differ.
  const asSetUp = { ...options, ...state };
  const again = setupCommandLine(client, state);
  const setup = await spec.setup();
  checks.push(sealCheck(client, setup.edits(options), options.env));
  for (const file of planSetup(setup.edits(asSetUp)))
    checks.push(
      leavesAsItIs(file)
        ? { ok: true, what: `${file.path}: ${file.purpose}` }
        : {
            ok: false,
            what: `${file.path} no longer has what setup wrote (${file.purpose})`,
            fix: again,
          },
    );
  {
    const command = spillwayShell(options.spillway, ['hook', client]);
    const r = await runShell(command, JSON.stringify(spec.probe), options.env, 15_000);
    checks.push(
      r.code === 0 && r.stderr === '' && r.stdout.trim() === ''
        ? { ok: true, what: `the ${client} hook runs and leaves a small output as it is` }
        : {
            ok: false,
            what: `the ${client} hook failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().slice(0, 300)}`,
            fix: `run: echo '{}' | ${command}`,
          },
    );
  }
  checks.push(checkStore(options.env), await checkMcp(options));
  if (setup.checks)
    checks.push(...(await setup.checks(options, { ...(state.proxy ? { proxy: state.proxy } : {}), cwd })));
  const token = checkToken(options.env);
  if (token) checks.push(token);
  if (state.proxy) checks.push(await checkProxy(state.proxy));
  return checks;
}

/**
 * The setup command that writes again what an earlier setup wrote (its proxy and servers).
 *
 * @example
 * setupCommandLine('codex', { proxy: 'http://127.0.0.1:4747', mcp: ['files'] }); // 'spillway setup codex --proxy http://127.0.0.1:4747 --mcp files'
 */
export function setupCommandLine(client: string, state: SetupState): string {
  return [
    `spillway setup ${client}`,
    ...(state.proxy ? [`--proxy ${state.proxy}`] : []),
    ...(state.mcp ?? []).map((name) => `--mcp ${name}`),
  ].join(' ');
}
