import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResolvedEngineConfig, resolveEngineConfig } from '../engine/config.js';
import type { Stage } from '../engine/types.js';
import { mcpHttpHandler } from '../mcp/server/http.js';
import { FileStore } from '../store/backends/file-store.js';
import { recallAll } from '../store/recall/recall.js';
import { stash } from '../store/stash.js';
import { pinnedLibrary } from '../test-support/client-install.js';
import { listenOnLoopback } from '../test-support/loopback.js';
import { postSession } from '../test-support/request-bodies.js';
import { ANSWER_TEXT, ANSWERS, startUpstream, type TestUpstream } from '../test-support/upstream.js';
import { markerIds } from '../text/markers.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { type RunningProxy, startProxy } from './server.js';

const o200k = getTokenizer('o200k');
const bigLog = Array.from(
  { length: 60_000 },
  (_, i) => `[${i}] compiling module-${i}.ts ... ${i % 97 === 0 ? 'warning: unused import' : 'ok'}`,
).join('\n');
const quiet = () => {};

let upstream: TestUpstream;
let proxy: RunningProxy;
let store: FileStore;

beforeAll(async () => {
  upstream = await startUpstream();
  store = new FileStore({
    base: join(mkdtempSync(join(tmpdir(), 'sw-proxy-')), 'tool-results'),
    pruneOnFirstSpill: false,
  });
  proxy = await startProxy({
    config: resolveEngineConfig(),
    store,
    port: 0,
    upstreams: { anthropic: upstream.url, openai: upstream.url },
    mcp: mcpHttpHandler(store),
    log: quiet,
  });
});
afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

// The official SDKs load from the pinned cache (`npm run clients`), not from dev dependencies:
// their compatibility tests skip, with the reason, where they are not installed.
const anthropicSdk = await pinnedLibrary('@anthropic-ai/sdk');
const openaiSdk = await pinnedLibrary('openai');
// Every SDK that is missing, named (the OpenAI tests' skip names the openai package too).
const sdkMissing =
  [anthropicSdk, openaiSdk]
    .map((l) => ('missing' in l ? l.missing : ''))
    .filter(Boolean)
    .join('; ') || undefined;
// biome-ignore lint/suspicious/noExplicitAny: the SDKs load at run time from the cache, without their types
type Sdk = any;
const sdkClass = (lib: typeof anthropicSdk, name: string): Sdk =>
  'module' in lib ? lib.module[name] : undefined;
const anthropic = (): Sdk =>
  new (sdkClass(anthropicSdk, 'Anthropic'))({ apiKey: 'sk-ant-test', baseURL: proxy.url, maxRetries: 0 });
const openai = (): Sdk =>
  new (sdkClass(openaiSdk, 'OpenAI'))({ apiKey: 'sk-test', baseURL: `${proxy.url}/v1`, maxRetries: 0 });
/** An Anthropic Messages request as a client sends it, for tests about the proxy rather than an SDK. */
const postMessages = (
  body: object,
  {
    url = proxy.url,
    headers = {},
    signal,
  }: { url?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
) =>
  fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': 'sk-ant-test',
      'anthropic-version': '2023-06-01',
      ...headers,
    },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  }).then(async (res) => {
    if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
    return res;
  });
const last = () => upstream.seen.at(-1) as (typeof upstream.seen)[number];
const sentToolResult = () =>
  (last().json as { messages: { content: { content: string }[] }[] }).messages[2]?.content[0]
    ?.content as string;
/** Sends bytes as they are (a client library would refuse these request targets) and reads the answer. */
const rawRequest = (port: number, bytes: string) =>
  new Promise<string>((done, fail) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
    });
    socket.on('end', () => done(answer));
    socket.on('error', fail);
  });
// biome-ignore lint/suspicious/noExplicitAny: JSON answers of the fake upstream and the proxy, read field by field
const json = async (res: Response): Promise<any> => res.json();

// Each body starts a conversation of its own (the session key hashes the system prompt and the
// first user message), as a new chat would; changing an earlier turn of one conversation is not
// something a client does, and the proxy would rightly leave it alone as cached prefix.
let conversations = 0;
function anthropicBody(result: string, extra: Record<string, unknown> = {}) {
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 100,
    system: `You are test conversation ${conversations++}.`,
    messages: [
      { role: 'user' as const, content: 'run the build' },
      {
        role: 'assistant' as const,
        content: [{ type: 'tool_use' as const, id: 'toolu_build', name: 'Bash', input: { command: 'make' } }],
      },
      {
        role: 'user' as const,
        content: [{ type: 'tool_result' as const, tool_use_id: 'toolu_build', content: result }],
      },
    ],
    ...extra,
  };
}

describe('proxy with the official SDKs', () => {
  // A skipped test's name carries why, for the skip reporter.
  const sdkIt = (name: string, test: () => Promise<void>) =>
    it.skipIf(sdkMissing)(sdkMissing ? `${name} (skipped: ${sdkMissing})` : name, test);
  sdkIt(
    'Anthropic Messages: a multi-MB tool result goes up collapsed, the answer comes back unchanged',
    async () => {
      expect(Buffer.byteLength(bigLog)).toBeGreaterThan(2_000_000);
      const answer = await anthropic().messages.create(anthropicBody(bigLog));
      expect(answer.content).toEqual(ANSWERS['/v1/messages'].content);
      const sent = last();
      expect(sent.url).toBe('/v1/messages');
      // The key reaches the upstream in whichever header the SDK uses.
      expect(`${sent.headers['x-api-key'] ?? ''} ${sent.headers.authorization ?? ''}`).toContain(
        'sk-ant-test',
      );
      const toolResult = (sent.json as { messages: { content: { content: string }[] }[] }).messages[2]
        ?.content[0]?.content as string;
      expect(o200k.count(toolResult)).toBeLessThanOrEqual(2000);
      expect(toolResult.startsWith('[0] compiling')).toBe(true);
      expect(toolResult).toContain('[59999] compiling');
      // The marker recalls the exact original.
      const id = markerIds(toolResult)[0] as string;
      expect((await recallAll(id, { store })).toString()).toBe(bigLog);
      expect(toolResult).toContain(store.base);
    },
  );

  sdkIt('Anthropic Messages streaming: every event comes through', async () => {
    const stream = await anthropic().messages.create({ ...anthropicBody(bigLog), stream: true });
    const text: string[] = [];
    for await (const event of stream)
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
        text.push(event.delta.text);
    expect(text).toEqual(ANSWER_TEXT);
    expect(Buffer.byteLength(last().body)).toBeLessThan(20_000);
  });

  sdkIt('count_tokens sees the same rewrite as messages', async () => {
    const body = anthropicBody(`${bigLog}\ncount me`);
    const counted = await anthropic().messages.countTokens({
      model: body.model,
      system: body.system,
      messages: body.messages,
    });
    expect(counted.input_tokens).toBe(1234);
    const countedBody = last().json as { messages: unknown[] };
    await anthropic().messages.create(body);
    const sentBody = last().json as { messages: unknown[] };
    expect(JSON.stringify(countedBody.messages)).toBe(JSON.stringify(sentBody.messages));
    expect(JSON.stringify(sentBody.messages).length).toBeLessThan(20_000);
  });

  sdkIt('OpenAI Chat Completions, plain and streaming', async () => {
    const messages = [
      { role: 'system' as const, content: 'You are a test.' },
      { role: 'user' as const, content: 'run the build' },
      {
        role: 'assistant' as const,
        content: null,
        tool_calls: [
          { id: 'call_build', type: 'function' as const, function: { name: 'bash', arguments: '{}' } },
        ],
      },
      { role: 'tool' as const, tool_call_id: 'call_build', content: bigLog },
    ];
    const answer = await openai().chat.completions.create({ model: 'gpt-4o', messages });
    expect(answer.choices[0]?.message.content).toBe(ANSWER_TEXT.join(''));
    const sent = last().json as { messages: { content: string }[] };
    expect(o200k.count(sent.messages[3]?.content as string)).toBeLessThanOrEqual(2000);
    expect(last().headers.authorization).toBe('Bearer sk-test');
    const stream = await openai().chat.completions.create({ model: 'gpt-4o', messages, stream: true });
    const parts: string[] = [];
    for await (const chunk of stream)
      if (chunk.choices[0]?.delta.content) parts.push(chunk.choices[0].delta.content);
    expect(parts).toEqual(ANSWER_TEXT);
  });

  sdkIt('OpenAI Responses, plain and streaming', async () => {
    const input = [
      { role: 'user' as const, content: 'run the build' },
      { type: 'function_call' as const, call_id: 'call_r', name: 'shell', arguments: '{}' },
      { type: 'function_call_output' as const, call_id: 'call_r', output: bigLog },
    ];
    const answer = await openai().responses.create({ model: 'gpt-5', input });
    expect(answer.output_text).toBe(ANSWER_TEXT.join(''));
    const sent = last().json as { input: { output?: string }[] };
    expect(o200k.count(sent.input[2]?.output as string)).toBeLessThanOrEqual(2000);
    const stream = await openai().responses.create({ model: 'gpt-5', input, stream: true });
    const parts: string[] = [];
    for await (const event of stream)
      if (event.type === 'response.output_text.delta') parts.push(event.delta);
    expect(parts).toEqual(ANSWER_TEXT);
  });

  it("Codex's responses-lite: tools in an additional_tools item, the shell output inside a custom exec call", async () => {
    // The shape Codex 0.171.0 sends for its default model: no `tools`, a leading
    // `additional_tools` input item, and the JavaScript `exec` tool's custom_tool_call_output.
    const tools = {
      type: 'additional_tools',
      role: 'developer',
      tools: [
        {
          type: 'namespace',
          name: 'functions',
          tools: [{ type: 'custom', name: 'exec', description: 'Run JavaScript' }],
        },
      ],
    };
    const output = `Script completed\nWall time 0.4 seconds\nOutput:\n\n${bigLog}`;
    const body = {
      model: 'gpt-6.2-sol',
      stream: true,
      text: { verbosity: 'low' },
      input: [
        tools,
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: `lite ${++conversations}` }] },
        {
          type: 'custom_tool_call',
          call_id: 'call_x',
          name: 'exec',
          input: 'text((await tools.exec_command({cmd:"make"})).output)',
        },
        { type: 'custom_tool_call_output', call_id: 'call_x', output },
      ],
    };
    const res = await fetch(`${proxy.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    await res.text();
    const sent = last().json as typeof body;
    expect(sent.input[0]).toEqual(tools);
    expect(sent.input.slice(1, 3)).toEqual(body.input.slice(1, 3));
    const shortened = (sent.input[3] as { output: string }).output;
    expect(o200k.count(shortened)).toBeLessThanOrEqual(2000);
    expect(shortened).toContain('Script completed');
    const id = markerIds(shortened)[0] as string;
    expect((await recallAll(id, { store })).toString('utf8')).toBe(output);
  });

  it('passes other paths through untouched, and forwards a request with nothing to change as its original bytes', async () => {
    const models = await json(
      await fetch(`${proxy.url}/v1/models`, { headers: { authorization: 'Bearer sk-test' } }),
    );
    expect(models.data[0]?.id).toBe('gpt-test');
    const raw = `{\n  "model": "claude-sonnet-4-5",   "max_tokens": 5,\n  "messages": [{"role": "user", "content": "caf\\u00e9"}]\n}`;
    const res = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: raw,
    });
    expect(res.status).toBe(200);
    expect(last().body.toString('utf8')).toBe(raw);
  });

  it('refuses a WebSocket handshake with 426, so Codex goes to HTTP at once, and forwards nothing', async () => {
    const before = upstream.seen.length;
    const answer = await new Promise<{ status: number; body: string; connection: string | undefined }>(
      (done, fail) => {
        const req = httpRequest(`${proxy.url}/v1/responses`, {
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          },
        });
        req.on('upgrade', () => fail(new Error('the proxy accepted a WebSocket')));
        req.on('response', async (res) => {
          let body = '';
          for await (const chunk of res) body += chunk;
          done({ status: res.statusCode ?? 0, body, connection: res.headers.connection });
        });
        req.on('error', fail);
        req.end();
      },
    );
    expect(answer.status).toBe(426);
    expect(answer.connection).toBe('close');
    expect(JSON.parse(answer.body).error.message).toMatch(/over HTTP only/);
    expect(upstream.seen.length).toBe(before);
  });

  it('forwards a body that is not JSON, or not the API shape, untouched', async () => {
    const before = proxy.stats.unparseable;
    for (const raw of ['{"model": oops', '{"not":"messages"}']) {
      await fetch(`${proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      });
      expect(last().body.toString('utf8')).toBe(raw);
    }
    expect(proxy.stats.unparseable).toBe(before + 2);
  });

  it('aborts the upstream request when the client disconnects mid-stream', async () => {
    upstream.eventGapMs = 200;
    try {
      const controller = new AbortController();
      const res = await postMessages(
        { ...anthropicBody('short'), stream: true },
        { signal: controller.signal },
      );
      await res.body?.getReader().read();
      controller.abort();
      const url = await Promise.race([
        upstream.aborted,
        new Promise((r) => setTimeout(() => r('timeout'), 5000)),
      ]);
      expect(url).toBe('/v1/messages');
    } finally {
      upstream.eventGapMs = 0;
    }
  });

  it("writes a request's decisions after its answer is out, never while it streams", async () => {
    upstream.eventGapMs = 40;
    const log = { dir: 'after-the-answer', name: 'fz_log' };
    try {
      const res = await postMessages(
        { ...anthropicBody('short output'), stream: true },
        { headers: { 'x-spillway-session': log.dir } },
      );
      const events = res.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
      await events.read();
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(await store.stat(log)).toBeNull();
      while (!(await events.read()).done);
      for (let i = 0; i < 100 && !(await store.stat(log)); i++) await new Promise((r) => setTimeout(r, 10));
      expect(await store.stat(log)).not.toBeNull();
    } finally {
      upstream.eventGapMs = 0;
    }
  });

  it('serves /expand and /healthz, /stats and /metrics', async () => {
    // A proxy of its own: its counters hold this test's traffic only, whatever else ran before.
    const own = await startProxy({
      config: resolveEngineConfig(),
      store,
      port: 0,
      upstreams: { anthropic: upstream.url },
      log: quiet,
    });
    try {
      await servesRecallAndCounters(own);
    } finally {
      await own.close();
    }
  });

  async function servesRecallAndCounters(proxy: RunningProxy): Promise<void> {
    await postMessages(anthropicBody(`${bigLog}\nexpand me`), { url: proxy.url });
    const toolResult = sentToolResult();
    // One request with nothing to shorten: counted, not rewritten.
    await postMessages(anthropicBody('a short result'), { url: proxy.url });
    const id = markerIds(toolResult)[0] as string;
    const original = `${bigLog}\nexpand me`;
    const page = await (await fetch(`${proxy.url}/expand?id=${id}`)).text();
    expect(page).toMatch(
      /\n\[bytes 0-\d+ of \d+; lines 1-\d+ of 60001; ~?\d+ tokens in all; call spillway_expand with offset \d+ for the next page/,
    );
    expect(page.startsWith('[0] compiling')).toBe(true);
    // The original bytes exactly, for people and scripts.
    const raw = await fetch(`${proxy.url}/expand?id=${id}&raw=1`);
    expect(Buffer.from(await raw.arrayBuffer()).toString()).toBe(original);
    // grep with line numbers and context, and a range of lines, numbered.
    const grep = await (
      await fetch(`${proxy.url}/expand?id=${id}&grep=${encodeURIComponent('^\\[4321\\] ')}&context=1`)
    ).text();
    expect(grep).toBe(
      `4321-[4320] compiling module-4320.ts ... ok\n4322:[4321] compiling module-4321.ts ... ok\n4323-[4322] compiling module-4322.ts ... ok\n[grep "^\\[4321\\] ": 1 matching lines of 60001]`,
    );
    const range = await (await fetch(`${proxy.url}/expand?id=${id}&lines=60000-`)).text();
    expect(range).toBe(
      `60000:[59999] compiling module-59999.ts ... ok\n60001:expand me\n[lines 60000-60001 of 60001]`,
    );
    expect((await fetch(`${proxy.url}/expand?id=${id}&grep=${encodeURIComponent('(a')}`)).status).toBe(400);
    // A field names a string inside a JSON original; this one is a log, which the answer says.
    const field = await fetch(`${proxy.url}/expand?id=${id}&field=/stdout&lines=1-2`);
    expect(field.status).toBe(400);
    expect((await json(field)).error.message).toMatch(/JSON/);
    const missing = await fetch(`${proxy.url}/expand?id=nope_nope`);
    expect(missing.status).toBe(404);
    expect((await json(missing)).error.message).toBe(
      'no stored tool result with id "nope_nope"; do not retry',
    );
    expect((await fetch(`${proxy.url}/expand?id=../../etc`)).status).toBe(400);
    expect(await json(await fetch(`${proxy.url}/healthz`))).toMatchObject({ ok: true });
    const stats = await json(await fetch(`${proxy.url}/stats`));
    expect(stats.requests).toBe(2);
    expect(stats.byApi.anthropic).toBe(2);
    expect(stats.rewritten).toBe(1);
    expect(stats.tokensSaved).toBeGreaterThan(100_000);
    expect(stats.stages.collapse.acted).toBe(1);
    const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
    expect(metrics).toMatch(/^spillway_requests_total\{api="anthropic"\} \d+$/m);
    expect(metrics).toMatch(/^spillway_stage_declined_total\{stage="collapse",reason="[a-z_]+"\} \d+$/m);
    expect(metrics).toMatch(/^spillway_fail_open_total \d+$/m);
    expect(metrics).toMatch(
      /^spillway_stage_events_total\{stage="collapse",event="line_window"\} [1-9]\d*$/m,
    );
    expect(stats.stages.collapse.events.line_window).toBe(1);
  }

  it('answers a catastrophic pattern in bounded time and keeps serving meanwhile', async () => {
    const id = await stash(store, `${'a'.repeat(40)}b\n`.repeat(100_000));
    const pattern = encodeURIComponent('^(a+)+$');
    const grep = fetch(`${proxy.url}/expand?id=${id}&grep=${pattern}`).then((r) => r.text());
    // Other requests are answered while the search runs (it yields between chunks).
    expect((await fetch(`${proxy.url}/healthz`)).status).toBe(200);
    expect(await grep).toBe(
      '[grep "^(a+)+$": no matching line in 100000 lines (4200000 bytes); try another pattern, or ask for lines "A-B"]',
    );
    const refused = await fetch(`${proxy.url}/expand?id=${id}&grep=${encodeURIComponent('(a)\\1')}`);
    expect(refused.status).toBe(400);
    expect((await json(refused)).error.message).toMatch(
      /backreference or lookaround, which spillway does not run/,
    );
  });

  it('recalls every marker over MCP, by HTTP at /mcp and by `spillway mcp` on stdio', async () => {
    await postMessages(anthropicBody(`${bigLog}\nmcp`));
    const toolResult = (last().json as { messages: { content: { content: string }[] }[] }).messages[2]
      ?.content[0]?.content as string;
    const id = markerIds(toolResult)[0] as string;
    const original = `${bigLog}\nmcp`;
    const readAll = async (client: Client) => {
      let text = '';
      let offset = 0;
      for (;;) {
        const r = (await client.callTool({
          name: 'spillway_expand',
          arguments: { id, offset, max_tokens: 32000 },
        })) as {
          content: { text: string }[];
        };
        const page = r.content[0]?.text as string;
        const footer =
          /\n\[bytes (\d+)-(\d+) of (\d+); lines \d+-\d+ of \d+; ~?\d+ tokens in all; (?:call spillway_expand with offset \d+ for the next page, or ask for lines "A-B" or grep a pattern|end of output)\]$/.exec(
            page,
          );
        if (!footer) throw new Error(`no footer in ${page.slice(-200)}`);
        text += page.slice(0, footer.index);
        offset = Number(footer[2]);
        if (offset >= Number(footer[3])) return text;
      }
    };
    const grep = async (client: Client, args: Record<string, unknown>) =>
      (
        (await client.callTool({ name: 'spillway_expand', arguments: { id, ...args } })) as {
          content: { text: string }[];
        }
      ).content[0]?.text;
    const checkSearch = async (client: Client) => {
      expect(await grep(client, { grep: '^mcp$', context: 0 })).toBe(
        '60001:mcp\n[grep "^mcp$": 1 matching lines of 60001]',
      );
      expect(await grep(client, { lines: '97-98' })).toBe(
        '97:[96] compiling module-96.ts ... ok\n98:[97] compiling module-97.ts ... warning: unused import\n[lines 97-98 of 60001]',
      );
      expect(await grep(client, { grep: 'WARNING: UNUSED', ignore_case: true, max_tokens: 100 })).toMatch(
        /^1:\[0\] compiling module-0\.ts \.\.\. warning: unused import\n2-/,
      );
    };
    const http = new Client({ name: 'test', version: '1' });
    await http.connect(new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`)));
    const tools = await http.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['spillway_expand']);
    expect(tools.tools[0]?.description).toMatch(/do not retry/);
    expect(tools.tools[0]?.description).toMatch(/Search before you read: grep/);
    expect(await readAll(http)).toBe(original);
    await checkSearch(http);
    const unknown = (await http.callTool({ name: 'spillway_expand', arguments: { id: 'nope_nope' } })) as {
      isError: boolean;
      content: { text: string }[];
    };
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]?.text).toMatch(/do not retry/);
    await http.close();

    const stdio = new Client({ name: 'test', version: '1' });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', resolve(import.meta.dirname, '../cli.ts'), 'mcp', '--dir', store.base],
        stderr: 'pipe',
      }),
    );
    expect(await readAll(stdio)).toBe(original);
    await checkSearch(stdio);
    await stdio.close();
  });
});

describe('start-up', () => {
  const freePort = async () => {
    const probe = await listenOnLoopback(createServer());
    await probe.close();
    return Number(new URL(probe.url).port);
  };

  it('accepts connections before its engine config is ready, and answers them once it is', async () => {
    let resolveConfigNow!: (p: ResolvedEngineConfig) => void;
    const pending = new Promise<ResolvedEngineConfig>((r) => {
      resolveConfigNow = r;
    });
    const port = await freePort();
    const starting = startProxy({ config: pending, store, port, log: quiet });
    // A client started beside the proxy: its connection is accepted and its request waits.
    let answered = false;
    let health: Promise<Response> | undefined;
    for (let i = 0; i < 200 && !health; i++) {
      try {
        await new Promise<void>((done, fail) => {
          const socket = connect(port, '127.0.0.1', () => {
            socket.destroy();
            done();
          });
          socket.on('error', fail);
        });
        health = fetch(`http://127.0.0.1:${port}/healthz`).then((r) => {
          answered = true;
          return r;
        });
      } catch {
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBe(false);
    resolveConfigNow(resolveEngineConfig({ preset: 'safe' }));
    const running = await starting;
    try {
      expect((await health)?.status).toBe(200);
      expect(running.config.preset).toBe('safe');
    } finally {
      await running.close();
    }
  });

  it('has counted with its tokenizer before it is ready, so no request after that waits on the tables loading (the first grep stalled /healthz ~300 ms)', async () => {
    const base = resolveEngineConfig();
    let counted = 0;
    const tokenizer = {
      ...base.tokenizer,
      count: (text: string) => {
        counted++;
        return base.tokenizer.count(text);
      },
    };
    const running = await startProxy({ config: { ...base, tokenizer }, store, port: 0, log: quiet });
    try {
      expect(counted).toBeGreaterThan(0);
    } finally {
      await running.close();
    }
  });

  it("stops with the engine config's error when it fails after listening, and frees the port", async () => {
    const port = await freePort();
    const failing = Promise.reject(new Error('config: unknown preset "fast"'));
    await expect(startProxy({ config: failing, store, port, log: quiet })).rejects.toThrow(/unknown preset/);
    const reused = await startProxy({ config: resolveEngineConfig(), store, port, log: quiet });
    await reused.close();
  });
});

describe('proxy failure behaviour', () => {
  it('answers 502 with a clear message when the upstream is down', async () => {
    const down = await startProxy({
      config: resolveEngineConfig(),
      store,
      port: 0,
      upstreams: { anthropic: 'http://127.0.0.1:1', openai: 'http://127.0.0.1:1' },
      log: quiet,
    });
    try {
      const res = await fetch(`${down.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(anthropicBody('x')),
      });
      expect(res.status).toBe(502);
      const body = await json(res);
      expect(body.error.message).toMatch(
        /spillway could not reach the upstream http:\/\/127\.0\.0\.1:1: ECONNREFUSED/,
      );
      expect(down.stats.upstreamErrors).toBe(1);
    } finally {
      await down.close();
    }
  });

  it('forwards the original request when the engine fails, and counts it', async () => {
    // A custom stage with a bug: its output cannot even be measured (a BigInt in a block).
    const broken: Stage = {
      name: 'collapse',
      lossy: false,
      pure: true,
      run: async (items) => items.map(() => ({ action: 'acted', content: [{ type: 'data', value: 1n }] })),
    };
    const failing = await startProxy({
      config: { ...resolveEngineConfig(), stages: [broken] },
      store,
      port: 0,
      upstreams: { anthropic: upstream.url },
      log: quiet,
    });
    try {
      const raw = JSON.stringify(anthropicBody(bigLog));
      const res = await fetch(`${failing.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      });
      expect(res.status).toBe(200);
      expect(last().body.toString('utf8')).toBe(raw);
      expect(failing.stats.failOpen).toBe(1);
    } finally {
      await failing.close();
    }
  });

  it('refuses bodies over the limit with 413 that a client writing the whole body still reads, and logs it', async () => {
    const lines: Record<string, unknown>[] = [];
    const small = await startProxy({
      config: resolveEngineConfig(),
      store,
      port: 0,
      upstreams: { anthropic: upstream.url },
      maxBodyBytes: 1000,
      mcp: mcpHttpHandler(store),
      log: (line) => lines.push(line),
    });
    try {
      // MCP over HTTP too: a JSON-RPC error that says what was wrong, not "not JSON".
      const rpc = await fetch(`${small.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: { pad: 'x'.repeat(5000) },
        }),
      });
      expect(rpc.status).toBe(413);
      expect((await json(rpc)).error.message).toMatch(/over spillway's limit of 1000 bytes/);
      const res = await fetch(`${small.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(anthropicBody(bigLog)),
      });
      expect(res.status).toBe(413);
      expect((await json(res)).error.message).toMatch(/over spillway's limit of 1000 bytes/);
      // Node's http.request writes 8 MiB before it reads: declared, or chunked with no length.
      for (const declared of [true, false]) {
        const body = Buffer.alloc(8 * 1024 * 1024, 'x');
        const answer = await new Promise<{ status: number; text: string }>((done, fail) => {
          const req = httpRequest(`${small.url}/v1/messages`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(declared ? { 'content-length': body.length } : { 'transfer-encoding': 'chunked' }),
            },
          });
          req.on('response', async (r) => {
            let text = '';
            for await (const c of r) text += c;
            done({ status: r.statusCode ?? 0, text });
          });
          req.on('error', fail);
          req.end(body);
        });
        expect(answer.status, `declared ${declared}`).toBe(413);
        expect(answer.text).toMatch(/over spillway's limit/);
      }
      expect(lines.filter((l) => l.status === 413 && l.path !== '/mcp')).toHaveLength(3);
    } finally {
      await small.close();
    }
  });

  it('logs an upstream that fails mid-answer, and cuts the client stream', async () => {
    const failing = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message_start\ndata: {}\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const up = await listenOnLoopback(failing);
    const lines: Record<string, unknown>[] = [];
    const p = await startProxy({
      config: resolveEngineConfig(),
      store,
      port: 0,
      upstreams: { anthropic: up.url },
      log: (line) => lines.push(line),
    });
    try {
      const res = await fetch(`${p.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'claude-sonnet-4-5',
          max_tokens: 5,
          stream: true,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
      expect(res.status).toBe(200);
      await expect(res.text()).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 50));
      expect(lines.at(-1)).toMatchObject({
        status: 200,
        error: expect.stringMatching(/^upstream failed mid-stream/),
      });
    } finally {
      await p.close();
      await up.close();
    }
  });

  it('ends and logs a request whose client leaves while the proxy waits for it to drain', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'e');
    const endless = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pump = () => {
        while (res.write(chunk));
        res.once('drain', pump);
      };
      pump();
    });
    const up = await listenOnLoopback(endless);
    const lines: Record<string, unknown>[] = [];
    const p = await startProxy({
      config: resolveEngineConfig(),
      store,
      port: 0,
      upstreams: { openai: up.url },
      log: (line) => lines.push(line),
    });
    try {
      // A client that reads nothing, so the proxy's writes back up, and then goes away.
      const req = httpRequest(`${p.url}/v1/models`);
      req.on('response', (res) => {
        res.pause();
        setTimeout(() => req.destroy(), 300);
      });
      req.on('error', () => {});
      req.end();
      const deadline = Date.now() + 5000;
      while (!lines.some((l) => l.path === '/v1/models') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      expect(lines.find((l) => l.path === '/v1/models')).toMatchObject({ status: 499, aborted: true });
    } finally {
      await p.close();
      await up.close();
    }
  });

  it('bounds rewrites at once; a request that waits past the limit goes upstream unmodified', async () => {
    const bodies: string[] = [];
    // An upstream that answers after 400 ms: a rewrite holds its slot until its body is sent.
    const slow = createServer(async (req, res) => {
      let text = '';
      for await (const c of req) text += c;
      bodies.push(text);
      setTimeout(() => res.end('{}'), 400);
    });
    const up = await listenOnLoopback(slow);
    const p = await startProxy({
      config: resolveEngineConfig(),
      store,
      port: 0,
      upstreams: { anthropic: up.url },
      admission: { maxConcurrent: 1, maxWaitMs: 100 },
      log: quiet,
    });
    try {
      const sent = [anthropicBody(bigLog), anthropicBody(bigLog)];
      const send = (i: number) =>
        postSession(`${p.url}/v1/messages`, sent[i], `session-${i}`).then((r) => r.arrayBuffer());
      await Promise.all([send(0), new Promise((r) => setTimeout(r, 5)).then(() => send(1))]);
      expect(p.stats.admissionTimeouts).toBe(1);
      // One went up collapsed, the other exactly as the client sent it.
      const [small, whole] = [...bodies].sort((a, b) => a.length - b.length);
      expect(small?.length).toBeLessThan(bigLog.length / 10);
      expect(sent.map((b) => JSON.stringify(b))).toContain(whole);
    } finally {
      await p.close();
      await up.close();
    }
  });

  it('passes a body through with its Content-Length, not chunked', async () => {
    const body = JSON.stringify({ input: 'x'.repeat(5_000_000) });
    const res = await fetch(`${proxy.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
      body,
    });
    await res.arrayBuffer();
    expect(last().url).toBe('/v1/embeddings');
    expect(last().headers['content-length']).toBe(String(body.length));
    expect(last().headers['transfer-encoding']).toBeUndefined();
    expect(last().body.toString()).toBe(body);
  });

  it('in observe mode forwards originals, reports what would have been saved, and writes nothing', async () => {
    const untouched = new FileStore({
      base: join(mkdtempSync(join(tmpdir(), 'sw-observe-')), 'tool-results'),
      pruneOnFirstSpill: false,
    });
    const observe = await startProxy({
      config: resolveEngineConfig(),
      store: untouched,
      port: 0,
      upstreams: { anthropic: upstream.url },
      observe: true,
      log: quiet,
    });
    try {
      const raw = JSON.stringify(anthropicBody(`${bigLog}\nobserve`));
      await fetch(`${observe.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      });
      expect(last().body.toString('utf8')).toBe(raw);
      expect(observe.stats.tokensSaved).toBeGreaterThan(100_000);
      expect(observe.stats.rewritten).toBe(0);
      expect(await untouched.list()).toEqual([]);
      expect(existsSync(untouched.base)).toBe(false);
    } finally {
      await observe.close();
    }
  });

  it('says clearly when its port is taken', async () => {
    const port = Number(new URL(proxy.url).port);
    await expect(startProxy({ config: resolveEngineConfig(), store, port, log: quiet })).rejects.toThrow(
      `cannot start the proxy: port ${port} on 127.0.0.1 is already in use; pick another with --port N (0 picks a free one)`,
    );
  });

  it('refuses to listen beyond loopback without a token, and guards every route with it', async () => {
    await expect(
      startProxy({ config: resolveEngineConfig(), store, port: 0, host: '0.0.0.0', log: quiet }),
    ).rejects.toThrow(/refusing to listen on 0\.0\.0\.0 without a token/);
    const guarded = await startProxy({
      config: resolveEngineConfig(),
      store,
      port: 0,
      host: '0.0.0.0',
      token: 'secret-token',
      upstreams: { anthropic: upstream.url },
      log: quiet,
    });
    try {
      const port = new URL(guarded.url).port;
      for (const path of ['/stats', '/metrics', '/expand?id=a', '/mcp']) {
        expect((await fetch(`http://127.0.0.1:${port}${path}`)).status, path).toBe(401);
      }
      expect(
        (await fetch(`http://127.0.0.1:${port}/stats`, { headers: { authorization: 'Bearer secret-token' } }))
          .status,
      ).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      // Model API requests too: the client keeps its own key and adds x-spillway-token.
      const message = {
        model: 'claude-sonnet-4-5',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
      };
      const send = (headers: Record<string, string>) =>
        fetch(`http://127.0.0.1:${port}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-client', ...headers },
          body: JSON.stringify(message),
        });
      const before = upstream.seen.length;
      expect((await send({})).status).toBe(401);
      expect((await send({ 'x-spillway-token': 'wrong-token' })).status).toBe(401);
      // spillway's token as a Bearer is refused on a model route: it would go upstream as is.
      expect((await send({ authorization: 'Bearer secret-token' })).status).toBe(401);
      expect(upstream.seen.length).toBe(before);
      expect((await send({ 'x-spillway-token': 'secret-token' })).status).toBe(200);
      expect(last().headers['x-spillway-token']).toBeUndefined();
      expect(last().headers['x-api-key']).toBe('sk-ant-client');
    } finally {
      await guarded.close();
    }
  });

  it("the dashboard's page names the recall token where this proxy keeps it", async () => {
    const proxy = await startProxy({
      config: resolveEngineConfig(),
      store,
      port: 0,
      recallToken: { token: 'r'.repeat(64), file: '/srv/team home/<sw>/token' },
      log: quiet,
    });
    try {
      const page = await (await fetch(`${proxy.url}/`)).text();
      expect(page).toContain('<code>cat /srv/team home/&#60;sw&#62;/token</code>');
      expect(page).not.toContain('~/.spillway/token');
    } finally {
      await proxy.close();
    }
  });

  it('asks for the recall token on every route that reads state when it has one, and not on model routes', async () => {
    const guarded = await startProxy({
      config: resolveEngineConfig(),
      store,
      port: 0,
      upstreams: { anthropic: upstream.url },
      recallToken: { token: 'r'.repeat(64), file: '/home/me/.spillway/token' },
      log: quiet,
    });
    try {
      const id = await stash(store, 'recalled text');
      for (const path of [`/expand?id=${id}`, '/mcp', '/stats', '/metrics', '/dashboard.json']) {
        const res = await fetch(`${guarded.url}${path}`, {
          method: path === '/mcp' ? 'POST' : 'GET',
          headers: { 'content-type': 'application/json' },
        });
        expect(res.status, path).toBe(401);
        expect((await json(res)).error.message).toContain('your recall token (/home/me/.spillway/token)');
      }
      const ok = await fetch(`${guarded.url}/expand?id=${id}`, {
        headers: { 'x-spillway-token': 'r'.repeat(64) },
      });
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('recalled text');
      expect(
        (await fetch(`${guarded.url}/stats`, { headers: { authorization: `Bearer ${'r'.repeat(64)}` } }))
          .status,
      ).toBe(200);
      expect((await fetch(`${guarded.url}/healthz`)).status).toBe(200);
      const message = {
        model: 'claude-sonnet-4-5',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
      };
      const model = await fetch(`${guarded.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
        body: JSON.stringify(message),
      });
      expect(model.status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it('refuses request targets that are not a path, so no target can pick the upstream host', async () => {
    const secret = createServer((_req, res) => res.end('internal secret'));
    const inside = await listenOnLoopback(secret);
    let reached = 0;
    secret.on('request', () => reached++);
    try {
      const port = new URL(proxy.url).port;
      const insideHost = new URL(inside.url).host;
      for (const target of [
        `*@${insideHost}/internal-secret`,
        `${inside.url}/internal-secret`,
        `//${insideHost}/x`,
      ]) {
        const answer = await rawRequest(
          Number(port),
          `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        );
        expect(answer, target).toMatch(/^HTTP\/1\.1 400 /);
        expect(answer).toContain('request targets of the form /path?query only');
      }
      // CONNECT gets an answer that says no, not a closed connection.
      const tunnel = await rawRequest(
        Number(port),
        `CONNECT ${insideHost} HTTP/1.1\r\nHost: ${insideHost}\r\n\r\n`,
      );
      expect(tunnel).toMatch(/^HTTP\/1\.1 405 /);
      expect(tunnel).toContain('does not tunnel');
      expect(reached).toBe(0);
    } finally {
      await inside.close();
    }
  });

  it('passes a request with x-spillway-bypass: 1 through untouched, the header not forwarded', async () => {
    const raw = JSON.stringify(anthropicBody(bigLog));
    const res = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'x-spillway-bypass': '1' },
      body: raw,
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(last().body.toString('utf8')).toBe(raw);
    expect(last().headers['x-spillway-bypass']).toBeUndefined();
  });

  it('pins a collapse budget for one request with x-spillway-budget, and refuses a malformed one', async () => {
    const send = (budget: string) =>
      fetch(`${proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'x-spillway-budget': budget },
        body: JSON.stringify(anthropicBody(bigLog)),
      });
    const tokens = async (budget: string) => {
      const res = await send(budget);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(last().headers['x-spillway-budget']).toBeUndefined();
      return o200k.count(sentToolResult());
    };
    const small = await tokens('400');
    const perTool = await tokens('Bash=900, Read=50');
    expect(small).toBeLessThanOrEqual(400);
    expect(small).toBeGreaterThan(300);
    expect(perTool).toBeLessThanOrEqual(900);
    expect(perTool).toBeGreaterThan(700);
    const seen = upstream.seen.length;
    const bad = await send('Bash=lots');
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.message).toMatch(/x-spillway-budget: "Bash=lots" is not a whole number/);
    expect(upstream.seen.length).toBe(seen);
  });

  it('answers an empty JSON-RPC batch on /mcp with Invalid Request', async () => {
    const res = await fetch(`${proxy.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '[]',
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe(-32600);
  });

  it('never logs bodies or keys', async () => {
    const lines: string[] = [];
    const logged = await startProxy({
      config: resolveEngineConfig(),
      store,
      port: 0,
      upstreams: { anthropic: upstream.url },
      log: (l) => lines.push(JSON.stringify(l)),
    });
    try {
      await postMessages(anthropicBody(`${bigLog}\nsecret body line`), {
        url: logged.url,
        headers: { 'x-api-key': 'sk-ant-VERYSECRET' },
      });
      expect(lines).toHaveLength(1);
      // spillway's own routes log a line each too; HEAD / answers like /healthz.
      expect((await fetch(`${logged.url}/`, { method: 'HEAD' })).status).toBe(200);
      expect((await fetch(`${logged.url}/stats`)).status).toBe(200);
      expect(lines.slice(1).map((l) => JSON.parse(l))).toMatchObject([
        { method: 'HEAD', path: '/', status: 200 },
        { method: 'GET', path: '/stats', status: 200 },
      ]);
      expect(lines[0]).not.toContain('VERYSECRET');
      expect(lines[0]).not.toContain('secret body line');
      expect(JSON.parse(lines[0] as string)).toMatchObject({
        method: 'POST',
        path: '/v1/messages',
        status: 200,
        api: 'anthropic',
      });
    } finally {
      await logged.close();
    }
  });
});
