import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { resolveEngineConfig } from '../src/engine/config.js';
import { startProxy } from '../src/proxy/server.js';
import { FileStore } from '../src/store/backends/file-store.js';
import { MB, multiLineLog, oneLineJson } from './inputs.js';
import { interleaved, median, medianRatio, ms, percentiles, timeAsync } from './measure.js';

const SSE_EVENTS = 2000;

/** A minimal upstream: answers JSON, or SSE_EVENTS small events for a streaming request. */
export async function upstream(): Promise<{ url: string; close: () => void }> {
  const server = createServer(async (req, res) => {
    let stream = false;
    for await (const chunk of req) if (!stream && (chunk as Buffer).includes('"stream":true')) stream = true;
    if (stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < SSE_EVENTS; i++) {
        if (
          !res.write(
            `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tok${i}"}}\n\n`,
          )
        )
          await once(res, 'drain');
        if (i % 50 === 0) await new Promise((r) => setImmediate(r));
      }
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"id":"msg","type":"message","content":[{"type":"text","text":"ok"}]}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** A proxy on a free loopback port to `upstreamUrl`, stashing under `base`, logging nothing. */
export function benchProxyTo(upstreamUrl: string, base: string): ReturnType<typeof startProxy> {
  return startProxy({
    config: resolveEngineConfig(),
    store: new FileStore({ base, pruneOnFirstSpill: false }),
    port: 0,
    upstreams: { anthropic: upstreamUrl },
    log: () => {},
  });
}

/** Sends one Messages request and reads its answer whole. */
export async function post(url: string, body: string, session: string): Promise<void> {
  const res = await request(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-spillway-session': session },
    body,
  });
  for await (const _ of res.body);
}

function body(results: string[], system: string): string {
  const messages: unknown[] = [{ role: 'user', content: 'go' }];
  results.forEach((content, i) => {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: {} }],
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content }] });
  });
  return JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, system, messages });
}

/** Latency the proxy adds, for a small and a 15 MB request, and per SSE event. */
export async function benchProxy(): Promise<void> {
  console.log(
    '\n## proxy: added latency (median; baseline: the same request sent straight to a local upstream)',
  );
  const up = await upstream();
  const root = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  const proxy = await benchProxyTo(up.url, join(root, 'tool-results'));
  try {
    const listing = Array.from(
      { length: 24 },
      (_, i) => `-rw-r--r-- 1 root root ${1000 + i * 37} Nov 30 01:${10 + i} file-${i}.ts`,
    );
    await smallRequests(up.url, proxy.url, listing.join('\n'));

    const big = body([oneLineJson(7 * MB).text, multiLineLog(7.5 * MB).text, 'small result'], 'big');
    const bytes = Buffer.byteLength(big);
    // A new session each round for first sight (the results are collapsed and stashed); the same
    // session every round for replay (its decisions are frozen). Interleaved, medians of 7.
    const runs = await interleaved(
      {
        direct: (i) => post(up.url, big, `D${i}`),
        first: (i) => post(proxy.url, big, `F${i}`),
        replay: () => post(proxy.url, big, 'R'),
        parseStringify: () => JSON.stringify(JSON.parse(big)),
      },
      7,
    );
    const added = (of: number[]) => of.map((x, i) => x - (runs.direct[i] as number));
    const parseStringify = median(runs.parseStringify);
    console.log(
      `\n(b) ${(bytes / MB).toFixed(1)} MB request with two large tool results (interleaved, medians of 7):`,
    );
    console.log(`  direct                          ${ms(median(runs.direct)).padStart(9)}`);
    console.log(`  JSON.parse + JSON.stringify     ${ms(parseStringify).padStart(9)}`);
    console.log(
      `  spillway, first sight           ${ms(median(runs.first)).padStart(9)}  added ${ms(median(added(runs.first)))}, ${medianRatio(added(runs.first), runs.parseStringify).toFixed(2)}x of parse+stringify`,
    );
    console.log(
      `  spillway, frozen replay         ${ms(median(runs.replay)).padStart(9)}  added ${ms(median(added(runs.replay)))}, ${medianRatio(added(runs.replay), runs.parseStringify).toFixed(2)}x of parse+stringify`,
    );

    const stream = JSON.stringify({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const directSse = await timeAsync(() => post(up.url, stream, 'sse'), 15, false);
    const proxiedSse = await timeAsync(() => post(proxy.url, stream, 'sse'), 15, false);
    console.log(
      `\n(c) SSE, ${SSE_EVENTS} events: direct ${ms(directSse)}, through spillway ${ms(proxiedSse)}; added ${(((proxiedSse - directSse) / SSE_EVENTS) * 1000).toFixed(1)} µs per event`,
    );
    await healthUnderLoad(up.url, root);
    await concurrentLarge(up.url, root);
    await unshortened(up.url, root);
  } finally {
    await proxy.close();
    up.close();
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * `/healthz` while three 5 MB requests are rewritten at once by a proxy whose store is full
 * (every stash fails, so each result takes the unsaved fallback): its latency, polled every
 * 10 ms, against the same poll of an idle proxy.
 */
async function healthUnderLoad(upstreamUrl: string, root: string): Promise<void> {
  await healthUnderLoadOf(upstreamUrl, root);
}

/** `npm run bench -- health`: only the /healthz-under-load figure (d). */
export async function benchHealth(): Promise<void> {
  console.log('\n## health: /healthz while three 5 MB requests are rewritten');
  const up = await upstream();
  const root = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  try {
    await healthUnderLoadOf(up.url, root);
  } finally {
    up.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function healthUnderLoadOf(upstreamUrl: string, root: string): Promise<void> {
  const proxy = await startProxy({
    config: resolveEngineConfig(),
    store: new FileStore({ base: join(root, 'full'), pruneOnFirstSpill: false, maxTotalBytes: 1024 }),
    port: 0,
    upstreams: { anthropic: upstreamUrl },
    log: () => {},
  });
  const poll = async (until: () => boolean) => {
    const samples: number[] = [];
    while (!until()) {
      const t = performance.now();
      await (await fetch(`${proxy.url}/healthz`)).arrayBuffer();
      samples.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 10));
    }
    return samples.sort((a, b) => a - b);
  };
  try {
    // The three clients run in another process, as real clients do, so the polls measure the
    // proxy and not the load generator sharing its event loop.
    const dir = mkdtempSync(join(root, 'bodies-'));
    const files = [0, 1, 2].map((i) => {
      const file = join(dir, `${i}.json`);
      writeFileSync(file, body([`${multiLineLog(5 * MB).text}\n${i}`], `full-${i}`));
      return file;
    });
    // Idle is measured after a pause, so both figures are of a proxy that is up and settled.
    await new Promise((r) => setTimeout(r, 600));
    let idleDone = false;
    setTimeout(() => {
      idleDone = true;
    }, 500);
    const idle = await poll(() => idleDone);
    let done = false;
    const t = performance.now();
    const script = `const fs = require('node:fs');
      Promise.all(${JSON.stringify(files)}.map((f, i) => fetch(${JSON.stringify(`${proxy.url}/v1/messages`)}, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-spillway-session': 'full-' + i },
        body: fs.readFileSync(f) }).then((r) => r.arrayBuffer())));`;
    const clients = spawn(process.execPath, ['-e', script], { stdio: 'inherit' });
    const load = once(clients, 'exit').then(() => {
      done = true;
    });
    const busy = await poll(() => done);
    await load;
    const took = performance.now() - t;
    const at = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * q))] as number;
    console.log(
      `\n(d) /healthz while 3 x 5 MB requests are rewritten with a full store (${ms(took)} for the three, ` +
        `${proxy.stats.stages.collapse?.declined.stash_failed ?? 0} sent whole, unsaved): p50 ${ms(at(busy, 0.5))}, ` +
        `max ${ms(at(busy, 1))} over ${busy.length} polls (idle: p50 ${ms(at(idle, 0.5))}, max ${ms(at(idle, 1))})`,
    );
  } finally {
    await proxy.close();
  }
}

/**
 * The least a proxy that reads requests can cost: it reads each body whole, decodes it and
 * parses its JSON, and forwards the bytes it got, unchanged. A proxy that rewrites a request
 * cannot do less; (e) reports spillway against it as well as against sending direct.
 */
async function parseOnlyProxy(upstreamUrl: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    JSON.parse(raw.toString('utf8'));
    const answer = await request(`${upstreamUrl}${req.url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: raw,
    });
    res.writeHead(answer.statusCode, { 'content-type': 'application/json' });
    res.end(Buffer.from(await answer.body.arrayBuffer()));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * 20 requests of 10 MB at once (each a new session, a 10 MB tool result), sent by clients in
 * another process: total time and the proxy process's peak RSS over its RSS before, against the
 * same 20 sent straight to the upstream, and through a proxy that only parses them (A B C A B C,
 * medians).
 */
async function concurrentLarge(upstreamUrl: string, root: string): Promise<void> {
  const proxy = await startProxy({
    config: resolveEngineConfig(),
    store: new FileStore({
      base: join(root, 'conc'),
      pruneOnFirstSpill: false,
      maxTotalBytes: 4 * 1024 ** 3,
    }),
    port: 0,
    upstreams: { anthropic: upstreamUrl },
    log: () => {},
  });
  const floor = await parseOnlyProxy(upstreamUrl);
  try {
    const dir = mkdtempSync(join(root, 'conc-bodies-'));
    const log = multiLineLog(10 * MB).text;
    const files = Array.from({ length: 20 }, (_, i) => {
      const file = join(dir, `${i}.json`);
      writeFileSync(file, body([`${log}\n${i}`], `conc-${i}`));
      return file;
    });
    let run = 0;
    const send = async (target: string) => {
      run++;
      const script = `const fs = require('node:fs');
        Promise.all(${JSON.stringify(files)}.map((f, i) => fetch(${JSON.stringify(`${target}/v1/messages`)}, {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-spillway-session': 'c${run}-' + i },
          body: fs.readFileSync(f) }).then((r) => r.arrayBuffer())));`;
      (globalThis as { gc?: () => void }).gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 5);
      const t = performance.now();
      await once(spawn(process.execPath, ['-e', script], { stdio: 'inherit' }), 'exit');
      const ms_ = performance.now() - t;
      clearInterval(sampler);
      return { ms: ms_, grewMb: (peak - before) / MB };
    };
    const direct: { ms: number; grewMb: number }[] = [];
    const parsed: { ms: number; grewMb: number }[] = [];
    const through: { ms: number; grewMb: number }[] = [];
    for (let i = 0; i < 3; i++) {
      direct.push(await send(upstreamUrl));
      parsed.push(await send(floor.url));
      through.push(await send(proxy.url));
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[1] as number;
    const inFlight = (files.length * Buffer.byteLength(body([log], 'x'))) / MB;
    console.log(
      `\n(e) 20 concurrent 10 MB requests (${inFlight.toFixed(0)} MB in flight): direct ${ms(med(direct.map((d) => d.ms)))}, ` +
        `through spillway ${ms(med(through.map((d) => d.ms)))} (${medianRatio(
          through.map((d) => d.ms),
          direct.map((d) => d.ms),
        ).toFixed(2)}x, the median of each round's ratio); ` +
        `proxy process RSS grew ${med(through.map((d) => d.grewMb)).toFixed(0)} MB at peak (direct: ${med(direct.map((d) => d.grewMb)).toFixed(0)} MB), ` +
        `${(med(through.map((d) => d.grewMb)) / inFlight).toFixed(2)}x the bytes in flight`,
    );
    console.log(
      `  a proxy that only parses each body and forwards it: ${ms(med(parsed.map((d) => d.ms)))} ` +
        `(${medianRatio(
          parsed.map((d) => d.ms),
          direct.map((d) => d.ms),
        ).toFixed(2)}x of direct); spillway is ${medianRatio(
          through.map((d) => d.ms),
          parsed.map((d) => d.ms),
        ).toFixed(2)}x of it`,
    );
  } finally {
    await proxy.close();
    await floor.close();
  }
}

/**
 * A 10 MB result no stage shortens, so only the window guard stands between it and the
 * provider: the result of an exempt tool (left as it is), and the same with no stages (the
 * guard collapses it). Each request holds a new result, so no count is remembered. Added time
 * against direct, interleaved, medians of 5.
 */
async function unshortened(upstreamUrl: string, root: string): Promise<void> {
  const proxyWith = (name: string, config: object) =>
    startProxy({
      config: resolveEngineConfig(config),
      store: new FileStore({ base: join(root, name), pruneOnFirstSpill: false }),
      port: 0,
      upstreams: { anthropic: upstreamUrl },
      log: () => {},
    });
  const exempt = await proxyWith('exempt', { tools: { Bash: { exempt: true } } });
  const bare = await proxyWith('bare', { stages: [] });
  try {
    const log = multiLineLog(10 * MB).text;
    const request = (i: number) => body([`${log}\n${i}`], `unshortened-${i}`);
    const runs = await interleaved(
      {
        direct: (i) => post(upstreamUrl, request(i), `ud-${i}`),
        exempt: (i) => post(exempt.url, request(1000 + i), `ue-${i}`),
        bare: (i) => post(bare.url, request(2000 + i), `ub-${i}`),
      },
      5,
    );
    const added = (of: number[]) => median(of.map((x, i) => x - (runs.direct[i] as number)));
    console.log(
      `\n(f) a new 10 MB result no stage shortens (medians of 5): direct ${ms(median(runs.direct))}; ` +
        `exempt tool, sent as it is: added ${ms(added(runs.exempt))}; no stages, the window guard collapses it: added ${ms(added(runs.bare))}`,
    );
  } finally {
    await exempt.close();
    await bare.close();
  }
}

/**
 * Small requests, each sent straight to the upstream and through spillway in turn (A B A B):
 * a new session; a new result in a known session (conversations of ten turns, one new result
 * each turn); the same request again (every result frozen, replayed). p50 and p99 of each.
 */
async function smallRequests(upstreamUrl: string, proxyUrl: string, listing: string): Promise<void> {
  const turnBody = (turns: number, tag: string) =>
    body(
      Array.from({ length: turns }, (_, t) => `${listing}\n${tag} turn ${t}`),
      'small',
    );
  const cases: { name: string; request: (i: number) => { body: string; session: string } }[] = [
    { name: 'new session', request: (i) => ({ body: turnBody(1, `n${i}`), session: `n${i}` }) },
    {
      name: 'new result, known session',
      request: (i) => ({
        body: turnBody((i % 10) + 1, `k${Math.floor(i / 10)}`),
        session: `k${Math.floor(i / 10)}`,
      }),
    },
    { name: 'replayed (all frozen)', request: () => ({ body: turnBody(5, 'r'), session: 'replay' }) },
  ];
  console.log('\n(a) small requests (1.5 KB a result), 300 of each, interleaved with direct:');
  for (const c of cases) {
    const direct: number[] = [];
    const through: number[] = [];
    for (let i = 0; i < 300; i++) {
      const { body: b, session } = c.request(i);
      let t = performance.now();
      await post(upstreamUrl, b, `d-${session}`);
      direct.push(performance.now() - t);
      t = performance.now();
      await post(proxyUrl, b, session);
      through.push(performance.now() - t);
    }
    const d = percentiles(direct);
    const p = percentiles(through);
    console.log(
      `  ${c.name.padEnd(26)} direct p50 ${ms(d.p50)} p99 ${ms(d.p99)}; through spillway p50 ${ms(p.p50)} p99 ${ms(p.p99)}; added p50 ${ms(p.p50 - d.p50)}, p99 ${ms(p.p99 - d.p99)}`,
    );
  }
}
