import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningProxy } from '../proxy/index.js';
import {
  anthropicConversation,
  buildLog,
  type ChatMessage,
  chatConversation,
} from '../test-support/gateway-bodies.js';
import { startGatewayProxy } from '../test-support/gateway-proxy.js';
import { PORTKEY, type RunningPortkey, startPortkey } from '../test-support/portkey.js';
import { freePort } from '../test-support/redis.js';
import { type SeenRequest, startUpstream, type TestUpstream } from '../test-support/upstream.js';

const missing = 'missing' in PORTKEY ? PORTKEY.missing : undefined;

/** The length of the bytes two bodies share from their start. */
function sharedPrefix(a: Buffer, b: Buffer): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

describe.skipIf(missing)(
  `the real Portkey gateway with spillway as its input mutator${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let upstream: TestUpstream;
    let spillway: RunningProxy;
    let portkey: RunningPortkey;
    const lines: Record<string, unknown>[] = [];

    beforeAll(async () => {
      upstream = await startUpstream();
      spillway = await startGatewayProxy({
        log: (line) => lines.push(line),
      });
      portkey = await startPortkey();
    });
    afterAll(async () => {
      await portkey?.stop();
      await spillway?.close();
      await upstream?.close();
    });

    /** Portkey's config: the provider at the scripted model, and spillway's webhook as an input mutator. */
    const config = (provider: string, hook = `${spillway.url}/portkey/hook`) =>
      JSON.stringify({
        provider,
        api_key: 'sk-test',
        custom_host: `${upstream.url}/v1`,
        input_mutators: [{ 'default.webhook': { webhookURL: hook, timeout: 3000 } }],
      });

    async function send(path: string, provider: string, body: unknown, hook?: string): Promise<SeenRequest> {
      const before = upstream.seen.length;
      const res = await fetch(`${portkey.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-portkey-config': config(provider, hook) },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      expect(upstream.seen.length).toBe(before + 1);
      return upstream.seen[before] as SeenRequest;
    }

    it('routes OpenAI chat through the hook: the collapse with its error line reaches the model, and turn N+1 shares turn N bytes', async () => {
      const first = await send('/v1/chat/completions', 'openai', {
        model: 'gpt-4o',
        messages: chatConversation('pk', 1),
      });
      const seen = (first.json as { messages: ChatMessage[] }).messages;
      const text = seen[3]?.content as string;
      expect(text.length).toBeLessThan(buildLog('pk0').length / 4);
      expect(text).toContain('ERROR pk0: connection refused at db/pool.ts:42');
      expect(text).toMatch(/<<sw:[A-Za-z0-9_-]+>> hash=[a-f0-9]{24}/);
      const second = await send('/v1/chat/completions', 'openai', {
        model: 'gpt-4o',
        messages: chatConversation('pk', 2),
      });
      const two = (second.json as { messages: ChatMessage[] }).messages;
      expect(JSON.stringify(two.slice(0, seen.length))).toBe(JSON.stringify(seen));
      // Byte for byte as the model gets them: everything up to the end of turn N's last message.
      const last = JSON.stringify(seen[seen.length - 1]);
      expect(sharedPrefix(first.body, second.body)).toBeGreaterThanOrEqual(
        first.body.indexOf(last) + last.length,
      );
      expect(String(two[5]?.content).length).toBeLessThan(buildLog('pk1').length / 4);
    });

    it('routes Anthropic messages through the hook the same way', async () => {
      const messages = anthropicConversation('pa', 1);
      const seen = await send('/v1/messages', 'anthropic', {
        model: 'claude-sonnet-4-5',
        max_tokens: 64,
        messages,
      });
      const result = (seen.json as { messages: { content: { content: { text: string }[] }[] }[] })
        .messages[2];
      const text = result?.content[0]?.content[0]?.text as string;
      expect(text.length).toBeLessThan(buildLog('pa0').length / 4);
      expect(text).toContain('ERROR pa0: connection refused');
      expect(lines.some((l) => l.path === '/portkey/hook' && l.hashes === 1)).toBe(true);
    });

    it('forwards the original when spillway is down', async () => {
      const dead = `http://127.0.0.1:${await freePort()}/portkey/hook`;
      const messages = chatConversation('down', 1);
      const seen = await send('/v1/chat/completions', 'openai', { model: 'gpt-4o', messages }, dead);
      expect((seen.json as { messages: ChatMessage[] }).messages).toEqual(messages);
    });
  },
);
