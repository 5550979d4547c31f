import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningProxy } from '../proxy/index.js';
import {
  anthropicConversation,
  buildLog,
  type ChatMessage,
  chatConversation,
  hashesIn,
  postJson,
} from '../test-support/gateway-bodies.js';
import { startGatewayProxy } from '../test-support/gateway-proxy.js';
import { hashOfRecallId } from './index.js';

const toolText = (m: ChatMessage) => m.content as string;

describe('the compression contract on the proxy port', () => {
  let proxy: RunningProxy;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    proxy = await startGatewayProxy({
      log: (line) => lines.push(line),
    });
  });
  afterAll(() => proxy.close());

  const compress = (messages: ChatMessage[], headers: Record<string, string> = {}) =>
    postJson(`${proxy.url}/v1/compress`, { messages, model: 'gpt-4o' }, headers);

  it('collapses OpenAI chat tool results, keeps the error line, and marks each with a hash a retrieve answers byte for byte', async () => {
    const messages = chatConversation('a', 1);
    const { status, json } = await compress(messages);
    expect(status).toBe(200);
    const out = json.messages as ChatMessage[];
    expect(out).toHaveLength(messages.length);
    const text = toolText(out[3] as ChatMessage);
    expect(text.length).toBeLessThan(toolText(messages[3] as ChatMessage).length / 4);
    expect(text).toContain('ERROR a0: connection refused at db/pool.ts:42');
    const [hash] = hashesIn(text);
    expect(hash).toMatch(/^[a-f0-9]{24}$/);
    expect(json.ccr_hashes).toEqual([hash]);
    expect(json.tokens_saved).toBe((json.tokens_before as number) - (json.tokens_after as number));
    expect(json.compression_ratio).toBeLessThan(0.5);
    expect(json.transforms_applied).toEqual(['spillway:collapse']);
    // The hash is the recall id's, beside spillway's own marker.
    const id = /<<sw:([A-Za-z0-9_-]+)>> hash=/.exec(text)?.[1] as string;
    expect(hashOfRecallId(id)).toBe(hash);
    const got = await fetch(`${proxy.url}/v1/retrieve/${hash}?query=error`);
    expect(got.status).toBe(200);
    const original = (await got.json()) as Record<string, unknown>;
    expect(original.original_content).toBe(toolText(messages[3] as ChatMessage));
    expect(original.tool_name).toBe('bash');
    const posted = await postJson(`${proxy.url}/v1/retrieve`, { hash });
    expect(posted.json.original_content).toBe(original.original_content);
  });

  it('collapses Anthropic tool_result text blocks the same way', async () => {
    const messages = anthropicConversation('b', 1);
    const { json } = await compress(messages);
    const result = (json.messages as { content: { content: { text: string }[] }[] }[])[2];
    const text = result?.content[0]?.content[0]?.text as string;
    expect(text).toContain('ERROR b0: connection refused');
    const [hash] = hashesIn(text);
    const got = await postJson(`${proxy.url}/v1/retrieve`, { hash });
    expect(got.json.original_content).toBe(buildLog('b0'));
  });

  it('gives the same messages the same bytes on every later turn, without a session id', async () => {
    const first = await compress(chatConversation('c', 1));
    const second = await compress(chatConversation('c', 2));
    const third = await compress(chatConversation('c', 3));
    const one = first.json.messages as ChatMessage[];
    const two = second.json.messages as ChatMessage[];
    const three = third.json.messages as ChatMessage[];
    expect(JSON.stringify(two.slice(0, one.length))).toBe(JSON.stringify(one));
    expect(JSON.stringify(three.slice(0, two.length))).toBe(JSON.stringify(two));
    // Every hash the later turn shows is retrievable, the earlier one among them.
    expect(third.json.ccr_hashes).toEqual(expect.arrayContaining(first.json.ccr_hashes as string[]));
    expect(third.json.ccr_hashes).toHaveLength(3);
  });

  it('tells apart two agents with the same first prompt by their first tool call', async () => {
    const before = lines.length;
    await compress(chatConversation('d', 1));
    await compress(chatConversation('e', 1));
    const sessions = lines
      .slice(before)
      .filter((l) => l.path === '/v1/compress')
      .map((l) => l.session);
    expect(sessions).toHaveLength(2);
    expect(sessions[0]).not.toBe(sessions[1]);
  });

  it('keeps a conversation whose client adds a system message later on its key and its bytes', async () => {
    const first = await compress(chatConversation('m', 1));
    const before = lines.length;
    const later = [...chatConversation('m', 2), { role: 'system', content: 'Reminder: be brief.' }];
    const second = await compress(later);
    const one = first.json.messages as ChatMessage[];
    expect(JSON.stringify((second.json.messages as ChatMessage[]).slice(0, one.length))).toBe(
      JSON.stringify(one),
    );
    const sessions = lines.filter((l) => l.path === '/v1/compress').map((l) => l.session);
    expect(sessions.at(-1)).toBe(lines.slice(0, before).findLast((l) => l.path === '/v1/compress')?.session);
  });

  it('keeps a session the caller names, even for results another conversation saw first', async () => {
    await compress(chatConversation('n', 1));
    const before = lines.length;
    await compress(chatConversation('n', 1), { 'x-spillway-session': 'fork-1' });
    expect(lines.slice(before).find((l) => l.path === '/v1/compress')?.session).toBe('fork-1');
  });

  it('keeps a trimmed history on its conversation: the results it kept keep their bytes', async () => {
    const full = await compress(chatConversation('f', 3));
    const before = lines.length;
    const kept = chatConversation('f', 3);
    // The caller dropped the first user message and the first call to fit its window.
    const trimmed = [kept[0], ...kept.slice(4)] as ChatMessage[];
    const out = await compress(trimmed);
    const fullMessages = full.json.messages as ChatMessage[];
    const trimmedMessages = out.json.messages as ChatMessage[];
    expect(JSON.stringify(trimmedMessages.slice(1))).toBe(JSON.stringify(fullMessages.slice(4)));
    const session = lines.slice(before).find((l) => l.path === '/v1/compress')?.session;
    expect(session).toBe(lines.slice(0, before).findLast((l) => l.path === '/v1/compress')?.session);
  });

  it('echoes the input with x-headroom-bypass: true, and passes bodies with nothing to do', async () => {
    const messages = chatConversation('g', 1);
    const bypassed = await compress(messages, { 'x-headroom-bypass': 'true' });
    expect(bypassed.json.messages).toEqual(messages);
    expect(bypassed.json.tokens_saved).toBe(0);
    const plain = [{ role: 'user', content: 'hello' }];
    const none = await compress(plain);
    expect(none.status).toBe(200);
    expect(none.json.messages).toEqual(plain);
    expect(none.json.ccr_hashes).toEqual([]);
  });

  it('counts what it saved in /stats, as the proxy counts its own requests', async () => {
    const before = (await fetch(`${proxy.url}/stats`).then((r) => r.json())) as {
      tokensSaved: number;
      rewritten: number;
    };
    await compress(chatConversation('stats', 1));
    const after = (await fetch(`${proxy.url}/stats`).then((r) => r.json())) as {
      tokensSaved: number;
      rewritten: number;
    };
    expect(after.rewritten).toBe(before.rewritten + 1);
    expect(after.tokensSaved).toBeGreaterThan(before.tokensSaved);
  });

  it('refuses a body without messages (400) and answers health', async () => {
    const bad = await postJson(`${proxy.url}/v1/compress`, { model: 'gpt-4o' });
    expect(bad.status).toBe(400);
    const health = await fetch(`${proxy.url}/health`);
    expect(await health.json()).toMatchObject({ status: 'healthy' });
  });

  it('retrieves only hashes it issued, and checks a hash before looking', async () => {
    const unknown = await fetch(`${proxy.url}/v1/retrieve/${'0'.repeat(24)}`);
    expect(unknown.status).toBe(404);
    const malformed = await fetch(`${proxy.url}/v1/retrieve/..%2F..%2Fetc`);
    expect(malformed.status).toBe(400);
    // A marker the client wrote itself is its text: no hash is issued for it.
    const own = [
      ...chatConversation('h', 1).slice(0, 3),
      { role: 'tool', tool_call_id: 'call_h_0', content: 'see <<sw:AAAAAAAAAAAAAAAAAAAAAA>>' },
    ];
    const out = await compress(own);
    expect(hashesIn(JSON.stringify(out.json.messages))).toEqual([]);
    const forged = await fetch(`${proxy.url}/v1/retrieve/${hashOfRecallId('AAAAAAAAAAAAAAAAAAAAAA')}`);
    expect(forged.status).toBe(404);
  });

  it('answers Portkey webhook mutations with the body rewritten, and its data carries only counts', async () => {
    const json = { model: 'gpt-4o', messages: chatConversation('p', 1) };
    const hook = (eventType: string) =>
      postJson(`${proxy.url}/portkey/hook`, {
        request: { json, text: '' },
        response: { json: null, text: null },
        provider: 'openai',
        requestType: 'chatComplete',
        metadata: { session_id: 'team-a-ticket-9' },
        eventType,
      });
    const before = await hook('beforeRequestHook');
    expect(before.json.verdict).toBe(true);
    const body = (before.json.transformedData as { request: { json: { messages: ChatMessage[] } } }).request
      .json;
    expect(toolText(body.messages[3] as ChatMessage)).toContain('ERROR p0: connection refused');
    expect(JSON.stringify(before.json.data)).not.toMatch(/team-a|call_|hash|sw:/);
    expect(lines.findLast((l) => l.path === '/portkey/hook')?.session).toBe('team-a-ticket-9');
    const after = await hook('afterRequestHook');
    expect(after.json).toEqual({ verdict: true });
  });
});
