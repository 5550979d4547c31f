import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../engine/config.js';
import { FileStore } from '../store/backends/file-store.js';
import { recallAll } from '../store/recall/recall.js';
import { startUpstream, type TestUpstream } from '../test-support/upstream.js';
import { markerIds } from '../text/markers.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { type RunningProxy, startProxy } from './server.js';

const bigLog = Array.from(
  { length: 40_000 },
  (_, i) => `[${i}] step ${i} ${i === 20_000 ? 'ERROR: disk full' : 'ok'}`,
).join('\n');
const lines: Record<string, unknown>[] = [];
let upstream: TestUpstream;
let proxy: RunningProxy;
let store: FileStore;
let conversation = 0;

beforeAll(async () => {
  upstream = await startUpstream();
  // A provider counting 1.2x o200k of what it received.
  upstream.inputTokens = (body) => Math.round(1.2 * getTokenizer('o200k').count(body.toString('utf8')));
  store = new FileStore({
    base: join(mkdtempSync(join(tmpdir(), 'sw-gemini-')), 'tool-results'),
    pruneOnFirstSpill: false,
  });
  proxy = await startProxy({
    config: resolveEngineConfig(),
    store,
    port: 0,
    upstreams: { gemini: upstream.url, anthropic: upstream.url, openai: upstream.url },
    log: (l) => lines.push(l),
    // A window these requests come within a quarter of once shortened, so their answers calibrate.
    window: 16_384,
  });
});
afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

/** A Gemini CLI-shaped request: a shell call and its output in response.output. */
function body(output: string) {
  return {
    systemInstruction: { parts: [{ text: `conversation ${conversation++}` }] },
    generationConfig: { temperature: 0, maxOutputTokens: 1000 },
    contents: [
      { role: 'user', parts: [{ text: 'build it' }] },
      {
        role: 'model',
        parts: [{ functionCall: { id: 'c1', name: 'run_shell_command', args: { command: 'make' } } }],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { id: 'c1', name: 'run_shell_command', response: { output } } }],
      },
    ],
  };
}
const post = (path: string, b: unknown, headers: Record<string, string> = {}) =>
  fetch(`${proxy.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(b),
  });
type GeminiBody = { contents: { parts: { functionResponse: { response: { output: string } } }[] }[] };
const sentOutput = () =>
  ((upstream.seen.at(-1)?.json ?? { contents: [] }) as GeminiBody).contents[2]?.parts[0]?.functionResponse
    .response.output as string;
// biome-ignore lint/suspicious/noExplicitAny: JSON answers of the fake upstream, read field by field
const json = async (res: Response): Promise<any> => res.json();

describe('Gemini through the proxy', () => {
  it('generateContent: a large shell output goes up collapsed, recallable, the key passed and never logged', async () => {
    const res = await post('/v1beta/models/gemini-2.5-pro:generateContent?key=AIzaSECRET', body(bigLog), {
      'x-goog-api-key': 'AIzaHEADERSECRET',
    });
    expect(res.status).toBe(200);
    expect((await json(res)).candidates[0].content.parts[0].text).toBe('The build failed at line 1999.');
    const sent = upstream.seen.at(-1);
    expect(sent?.url).toBe('/v1beta/models/gemini-2.5-pro:generateContent?key=AIzaSECRET');
    expect(sent?.headers['x-goog-api-key']).toBe('AIzaHEADERSECRET');
    const output = sentOutput();
    expect(getTokenizer('o200k').count(output)).toBeLessThanOrEqual(2000);
    expect(output).toContain('ERROR: disk full');
    expect((await recallAll(markerIds(output)[0] as string, { store })).toString()).toBe(bigLog);
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain('SECRET');
    expect(lines.at(-1)).toMatchObject({
      api: 'gemini',
      path: '/v1beta/models/gemini-2.5-pro:generateContent?…',
      status: 200,
    });
  });

  it("a whole functionResponse.response is stashed as the client's bytes (digits past 2^53, 1.50)", async () => {
    // An MCP-style response with no output string: shown as its JSON, shortened, and stashed.
    const rows = Array.from({ length: 3000 }, (_, i) => `{"id": 9007199254740993, "price": 1.50, "n": ${i}}`);
    const responseText = `{"rows": [${rows.join(', ')}]}`;
    const raw = `{"systemInstruction":{"parts":[{"text":"conversation ${conversation++}"}]},"contents":[{"role":"user","parts":[{"text":"list"}]},{"role":"model","parts":[{"functionCall":{"id":"c1","name":"query","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"query","response": ${responseText}}}]}]}`;
    const res = await fetch(`${proxy.url}/v1beta/models/gemini-2.5-pro:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: raw,
    });
    expect(res.status).toBe(200);
    const sent = sentOutput();
    const id = markerIds(sent)[0] as string;
    expect(id).toBeDefined();
    expect((await recallAll(id, { store })).toString()).toBe(responseText);
  });

  it('streamGenerateContent: SSE (alt=sse) and the JSON-array stream come through, their usage read', async () => {
    const before = proxy.stats.byApi.gemini ?? 0;
    const answers = proxy.stats.calibration.answers;
    const sse = await post('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse', body(bigLog));
    expect(sse.headers.get('content-type')).toContain('text/event-stream');
    const events = (await sse.text()).split('\r\n\r\n').filter(Boolean);
    expect(events).toHaveLength(3);
    expect(sentOutput()).toContain('<<sw:');
    const array = await post('/v1beta/models/gemini-2.5-pro:streamGenerateContent', body(bigLog));
    expect(await json(array)).toHaveLength(3);
    expect(proxy.stats.byApi.gemini).toBe(before + 2);
    // usageMetadata read from both: the SSE events and the JSON array's last chunk.
    for (let i = 0; i < 100 && proxy.stats.calibration.answers < answers + 2; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(proxy.stats.calibration.answers).toBe(answers + 2);
    expect(proxy.stats.calibration.lastCalibratedError).toBeLessThanOrEqual(0.02);
  });

  it('countTokens is rewritten like a call, and a request with nothing to change goes up as its bytes', async () => {
    const res = await post('/v1beta/models/gemini-2.5-pro:countTokens', body(bigLog));
    // The provider counted the shortened request, not the client's.
    expect((await json(res)).totalTokens).toBe(upstream.inputTokens?.(upstream.seen.at(-1)?.body as Buffer));
    expect(sentOutput()).toContain('<<sw:');
    const small = `${JSON.stringify(body('ok'), null, 2)}\n`;
    await fetch(`${proxy.url}/v1beta/models/gemini-2.5-pro:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: small,
    });
    expect(upstream.seen.at(-1)?.body.toString('utf8')).toBe(small);
    // Other Gemini paths go to the Gemini upstream untouched.
    await fetch(`${proxy.url}/v1beta/models?key=AIzaLIST`);
    expect(upstream.seen.at(-1)?.url).toBe('/v1beta/models?key=AIzaLIST');
    expect(JSON.stringify(lines)).not.toContain('AIzaLIST');
  });
});
