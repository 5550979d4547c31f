import { createServer } from 'node:http';
import { createAnthropic } from '@ai-sdk/anthropic';
import { jsonSchema, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../../engine/config.js';
import { MemoryStore } from '../../store/backends/memory-store.js';
import { listenOnLoopback } from '../../test-support/loopback.js';
import { aiSdkConversation, BUILD_ERROR, buildConversation } from '../../test-support/recall-fixture.js';
import { sse } from '../../test-support/upstream.js';
import { markerIds } from '../../text/index.js';
import { type RunningProxy, startProxy } from '../server.js';

// Anthropic streams where the model says something before its recall, or calls the agent's tool
// first: what the client sees of blocks numbered over two rounds, and of a cut turn.

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: object };

/** One streamed Anthropic message of these blocks, as the API sends it. */
function message(blocks: Block[], n: number): string {
  const events = [
    sse('message_start', {
      type: 'message_start',
      message: {
        id: `msg_${n}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        usage: { input_tokens: 100, output_tokens: 1 },
      },
    }),
  ];
  blocks.forEach((block, index) => {
    const start = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
    const delta =
      block.type === 'text'
        ? { type: 'text_delta', text: block.text }
        : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
    events.push(
      sse('content_block_start', { type: 'content_block_start', index, content_block: start }),
      sse('content_block_delta', { type: 'content_block_delta', index, delta }),
      sse('content_block_stop', { type: 'content_block_stop', index }),
    );
  });
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  events.push(
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stop },
      usage: { output_tokens: 10 },
    }),
    sse('message_stop', { type: 'message_stop' }),
  );
  return events.join('');
}

let script: (body: string, n: number) => Block[] = () => [];
const seen: string[] = [];
let upstream: { url: string; close: () => Promise<void> };
let proxy: RunningProxy;
beforeAll(async () => {
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    seen.push(body);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(message(script(body, seen.length), seen.length));
  });
  upstream = await listenOnLoopback(server);
  proxy = await startProxy({
    config: resolveEngineConfig({ preset: 'balanced' }),
    store: new MemoryStore({ maxTotalBytes: 1 << 28, maxSessionBytes: 1 << 28 }),
    port: 0,
    upstreams: { anthropic: upstream.url },
    log: () => {},
  });
});
afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

const recall = (body: string): Block => ({
  type: 'tool_use',
  id: 'toolu_recall',
  name: 'spillway_expand',
  input: { id: markerIds(body)[0], grep: 'ERROR' },
});
const bash = tool({
  description: 'Runs a command',
  inputSchema: jsonSchema<{ command?: string }>({
    type: 'object',
    properties: { command: { type: 'string' } },
  }),
});
const { body } = buildConversation('anthropic', true);

describe('Anthropic streams over two rounds', () => {
  it('what the model said before its recall and after it reach the client as one message, blocks numbered on', async () => {
    seen.length = 0;
    script = (request, n) =>
      n === 1
        ? [{ type: 'text', text: 'Let me look. ' }, recall(request)]
        : [{ type: 'text', text: request.includes('frobnicate_widget') ? 'Found it.' : 'Nothing.' }];
    const model = createAnthropic({ baseURL: `${proxy.url}/v1`, apiKey: 'k' })('claude-sonnet-4-5');
    const result = streamText({
      model,
      tools: { bash },
      messages: aiSdkConversation,
      headers: { 'x-spillway-session': 'two-rounds' },
    });
    expect(await result.text).toBe('Let me look. Found it.');
    expect(await result.toolCalls).toEqual([]);
    expect((await result.usage).inputTokens).toBe(200);
    expect(seen).toHaveLength(2);
    // The second round holds the model's own turn (its text and the recall) and the answer.
    expect(seen[1]).toContain('"text":"Let me look. "');
    expect(seen[1]).toContain(BUILD_ERROR.slice(0, 30));
  });

  it("a recall after the agent's own call is cut: the agent gets its call, the model is not asked again", async () => {
    seen.length = 0;
    script = (request) => [
      { type: 'tool_use', id: 'toolu_bash', name: 'bash', input: { command: 'make' } },
      recall(request),
    ];
    const res = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-spillway-session': 'cut' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    expect(seen).toHaveLength(1);
    expect(text).toContain('"name":"bash"');
    expect(text).not.toContain('spillway_expand');
    expect(text).toContain('"stop_reason":"tool_use"');
    expect(text.match(/event: message_stop/g)).toHaveLength(1);
  });
});
