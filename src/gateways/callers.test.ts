import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningProxy } from '../proxy/index.js';
import { type ChatMessage, chatConversation } from '../test-support/gateway-bodies.js';
import { startGatewayProxy } from '../test-support/gateway-proxy.js';

/**
 * LiteLLM's `extract_hashes_from_messages` (litellm/proxy/guardrails/guardrail_hooks/headroom/
 * headroom.py): `hash=([a-f0-9]{24})` in a message's string `content`, or in the `text` of its
 * top-level content blocks, nowhere else.
 */
function litellmHashes(messages: ChatMessage[]): string[] {
  const pattern = /hash=([a-f0-9]{24})/g;
  const hashes: string[] = [];
  for (const msg of messages) {
    const content = msg.content;
    if (typeof content === 'string')
      hashes.push(...[...content.matchAll(pattern)].map((m) => m[1] as string));
    else if (Array.isArray(content))
      for (const block of content)
        if (block && typeof block === 'object' && typeof (block as { text?: unknown }).text === 'string')
          hashes.push(...[...(block as { text: string }).text.matchAll(pattern)].map((m) => m[1] as string));
  }
  return hashes;
}

describe('the gateways callers, replayed', () => {
  let proxy: RunningProxy;
  beforeAll(async () => {
    proxy = await startGatewayProxy();
  });
  afterAll(() => proxy.close());

  it("answers LiteLLM's Headroom guardrail as its code reads the answer, and its headroom_retrieve calls", async () => {
    const messages = chatConversation('litellm', 2);
    // HeadroomGuardrail._call_compress: payload {"messages": messages} (+ "model" only when it
    // has one), headers Content-Type and Authorization: Bearer <api_key> when configured; httpx's
    // json= encoding. The api_key is ignored on loopback.
    const res = await fetch(`${proxy.url}/v1/compress`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sk-headroom-key' },
      body: JSON.stringify({ messages }),
    });
    // It needs status 200, a JSON object, and a non-empty `messages` list of objects ...
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    const compressed = body.messages as ChatMessage[];
    expect(Array.isArray(compressed) && compressed.length > 0).toBe(true);
    expect(compressed.every((m) => m && typeof m === 'object' && !Array.isArray(m))).toBe(true);
    // ... and logs tokens_before, tokens_after and compression_ratio.
    for (const key of ['tokens_before', 'tokens_after', 'compression_ratio'])
      expect(typeof body[key]).toBe('number');
    // It then offers headroom_retrieve for the hashes it finds, and honours only those.
    const hashes = litellmHashes(compressed);
    expect(hashes).toHaveLength(2);
    expect(new Set(hashes)).toEqual(new Set(body.ccr_hashes as string[]));
    // HeadroomGuardrail._call_retrieve: GET /v1/retrieve/{hash} with params {query} when the
    // model gave one; it reads `original_content`, and a 404 as "not found or expired".
    for (const [i, hash] of hashes.entries()) {
      const got = await fetch(
        `${proxy.url}/v1/retrieve/${hash}?query=${encodeURIComponent('connection refused')}`,
        {
          headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sk-headroom-key' },
        },
      );
      expect(got.status).toBe(200);
      const original = (await got.json()) as { original_content: string };
      expect(original.original_content).toBe((messages[3 + 2 * i] as ChatMessage).content);
    }
    const gone = await fetch(`${proxy.url}/v1/retrieve/${'f'.repeat(24)}`);
    expect(gone.status).toBe(404);
  });

  it("answers Kong's headroom provider: Headroom's /v1/compress with its proxy token, with or without a model", async () => {
    // Kong's ai-prompt-compressor is closed source: this is the call its docs describe
    // (developer.konghq.com/operator/konnect/how-to/ai-gateway-headroom/: "provider: headroom,
    // pointing compressor_url at Headroom's /v1/compress endpoint", with Headroom's proxy token),
    // in Headroom's contract. Kong 3.12 fixed the plugin "when no model parameter is specified".
    const messages = chatConversation('kong', 1);
    for (const body of [{ messages, model: 'gpt-4o' }, { messages }]) {
      const res = await fetch(`${proxy.url}/v1/compress`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-headroom-proxy-token': 'kong-secret' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      const answer = (await res.json()) as { messages: ChatMessage[]; tokens_saved: number };
      expect(answer.messages).toHaveLength(messages.length);
      expect(answer.tokens_saved).toBeGreaterThan(0);
      expect(answer.messages[3]?.content).toContain('ERROR kong0: connection refused');
    }
  });
});
