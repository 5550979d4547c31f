import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadClients } from '../clients/registry.js';
import { listenOnLoopback } from './loopback.js';
import { type ModelTurn, turnOf } from './scripted-model.js';

export { clientBinary } from './client-install.js';

export const ROOT = resolve(import.meta.dirname, '../..');
/** docs/clients.md: the setup lines for each client by hand, which the real-client tests run. */
export const CLIENTS_DOC = readFileSync(join(ROOT, 'docs/clients.md'), 'utf8');
/** The docs' proxy address; tests swap in the port their proxy got. */
export const DOC_URL = 'http://127.0.0.1:4747';

/** The fenced block of `lang` in docs/clients.md that contains `needle`. */
export function docBlock(lang: string, needle: string): string {
  for (const m of CLIENTS_DOC.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g')))
    if (m[1]?.includes(needle)) return m[1];
  throw new Error(`docs/clients.md has no \`\`\`${lang} block with ${needle}`);
}

/** The line of docs/clients.md that starts with `start`, without its trailing comment. */
export function docLine(start: string): string {
  const line = CLIENTS_DOC.split('\n').find((l) => l.startsWith(start));
  if (!line) throw new Error(`docs/clients.md has no line starting with "${start}"`);
  return line.replace(/\s+#.*$/, '');
}

/**
 * A user's machine in a temporary folder: HOME, a project folder and a bin folder on the PATH
 * where `spillway` runs the freshly built CLI (as `npm link` would) and each named client runs
 * its pinned binary.
 */
export function userMachine(clients: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), 'real-client-'));
  const bin = join(root, 'bin');
  const home = join(root, 'home');
  const project = join(root, 'project');
  for (const dir of [bin, home, project]) mkdirSync(dir);
  const shim = (name: string, command: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\nexec ${command} "$@"\n`);
    chmodSync(join(bin, name), 0o755);
  };
  shim('spillway', `"${process.execPath}" "${join(ROOT, 'dist/cli.js')}"`);
  for (const [name, path] of Object.entries(clients)) shim(name, `"${path}"`);
  const env: NodeJS.ProcessEnv = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: home,
    TMPDIR: process.env.TMPDIR,
    LANG: 'C.UTF-8',
  };
  return { root, home, project, env };
}

/**
 * What each client needs to run headless against the scripted model (from its spec): a key
 * (fake; the proxy forwards it), no updater or side traffic, a folder it trusts without asking.
 */
export const HEADLESS_ENV: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.fromEntries(
  (await loadClients()).map((c) => [c.headless.bin, c.headless.env]),
);

const BUILD_WAIT_MS = 10 * 60_000;

/**
 * Builds dist/ at most once a test run, so `spillway` on the PATH is this checkout. Test files run side
 * by side and the build starts by removing dist/: each building on its own took dist/ away from
 * another's running client (`Cannot find module dist/cli.js`). The first file builds under a lock
 * in the run's temp root; the others wait for it and find it built.
 */
export function buildCli(): void {
  const root = process.env.SPILLWAY_TEST_TMP ?? tmpdir();
  const built = join(root, 'dist-built');
  const lock = `${built}.lock`;
  const until = Date.now() + BUILD_WAIT_MS;
  for (;;) {
    if (existsSync(built)) return;
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > until)
        throw new Error(`waited ${BUILD_WAIT_MS} ms for another test file's build of dist/`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (existsSync(built)) return;
    // Only when a source is newer than dist/ (as npm start does): the dist/ npm ci built stays,
    // and tests reading it meanwhile (the examples) never see it removed.
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build-if-stale.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`building dist/ failed: ${r.stderr}`);
    writeFileSync(built, '');
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface RunningCliProxy {
  url: string;
  /** The proxy's JSON log lines so far. */
  log(): Record<string, unknown>[];
  close(): Promise<void>;
}

/** Starts `spillway proxy` as the docs do (a port of its own, upstreams on loopback). */
export async function startCliProxy(
  env: NodeJS.ProcessEnv,
  upstream: string | Partial<Record<'anthropic' | 'openai' | 'gemini', string>>,
  port = 0,
): Promise<RunningCliProxy> {
  // One URL for every API, or some of them (the others as the user's setup kept them).
  const given =
    typeof upstream === 'string' ? { anthropic: upstream, openai: upstream, gemini: upstream } : upstream;
  const flags = Object.entries(given).flatMap(([api, url]) => [`--${api}-upstream`, url as string]);
  const child: ChildProcess = spawn('spillway', ['proxy', '--port', String(port), ...flags], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const url = await new Promise<string>((done, fail) => {
    let stdout = '';
    child.on('exit', (code) => fail(new Error(`spillway proxy exited (${code}): ${stderr}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const m = /listening on (\S+)/.exec(stdout);
      if (m?.[1]) done(m[1]);
    });
  });
  return {
    url,
    log: () =>
      stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `codex exec` as the tests start it: no git check, the sandbox mode given, a model named. */
export const codexExecArgs = (sandbox: string, prompt: string): string[] => [
  'exec',
  '--skip-git-repo-check',
  '--sandbox',
  sandbox,
  '-m',
  'gpt-5',
  prompt,
];

/** A user's `~/.codex/config.toml` with a provider of their own at `url` (a gateway, a model). */
export const codexProviderConfig = (url: string): string =>
  `model_provider = "p"\n\n[model_providers.p]\nname = "p"\nbase_url = "${url}/v1"\nwire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n`;

/** What the model saw of a tool call: its output and what the client put beside it. */
export const seenOf = (out: ModelTurn['lastOutput']) => (out ? `${out.context ?? ''}\n${out.text}` : '');

/** The model's turns from request `from` on (the client's empty side requests left out). */
export const turnsFrom = (model: { seen: { json?: unknown }[] }, from: number, api: ModelTurn['api']) =>
  model.seen
    .slice(from)
    .filter((s) => s.json && Object.keys(s.json as Record<string, unknown>).length > 0)
    .map((s) => turnOf(api, s.json as Record<string, unknown>));

/**
 * What a client showed the model of a command, without what differs from run to run (Codex's
 * chunk ids, wall times, process groups and session numbers), for comparing two runs.
 */
export function steady(text: string): string {
  return text
    .replace(/Chunk ID: \w+/g, 'Chunk ID: *')
    .replace(/Wall time: [\d.]+ seconds/g, 'Wall time: *')
    .replace(/Process Group PGID: \d+/g, 'Process Group PGID: *')
    .replace(/session ID \d+/g, 'session ID *')
    .replace(/session-[\w-]+/g, 'session-*');
}

/** Runs a client to its end: exit code and output, killed after `timeoutMs`. */
export async function runClient(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs?: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, {
    env: options.env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  const code = await new Promise<number | null>((done) => child.on('exit', done));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

export interface Tap {
  url: string;
  /** The requests as the client sent them, in order. */
  seen: { url: string; json: Record<string, unknown> }[];
  close(): Promise<void>;
}

/**
 * A recording pass-through in front of `target`, so a test can compare what a client sent with
 * what went upstream. Bodies are recorded and forwarded as they are; answers are piped back.
 */
export async function startTap(target: string): Promise<Tap> {
  const tap: Tap = { url: '', seen: [], close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let json: Record<string, unknown> = {};
      try {
        json = body.length ? JSON.parse(body.toString('utf8')) : {};
      } catch {}
      tap.seen.push({ url: req.url ?? '/', json });
      const up = httpRequest(
        `${target}${req.url}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      up.end(body);
    });
  });
  Object.assign(tap, await listenOnLoopback(server));
  return tap;
}
