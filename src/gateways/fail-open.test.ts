import { afterEach, describe, expect, it } from 'vitest';
import type { RunningProxy } from '../proxy/index.js';
import { MemoryStore, type StoreKey } from '../store/index.js';
import { chatConversation, postJson } from '../test-support/gateway-bodies.js';
import { startGatewayProxy } from '../test-support/gateway-proxy.js';

/** A store whose reads never answer: a Redis that stopped replying. */
class HangingStore extends MemoryStore {
  override get(_key: StoreKey): Promise<Buffer | null> {
    return new Promise(() => {});
  }
}

/** A store that fails every write: a full disk. */
class FailingStore extends MemoryStore {
  override putIfAbsent(): Promise<boolean> {
    return Promise.reject(new Error('disk full'));
  }
  override putAllIfAbsent(): Promise<number> {
    return Promise.reject(new Error('disk full'));
  }
}

describe('never the reason a request fails', () => {
  let proxy: RunningProxy | undefined;
  const lines: Record<string, unknown>[] = [];
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    lines.length = 0;
  });

  const start = async (store: MemoryStore, options: { deadlineMs?: number; maxBodyBytes?: number } = {}) => {
    proxy = await startGatewayProxy({
      store,
      log: (line) => lines.push(line),
      gateway: options.deadlineMs ? { deadlineMs: options.deadlineMs } : {},
      ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
    });
    return proxy.url;
  };

  it('answers 200 with the input unchanged when the work overruns its deadline, and logs why', async () => {
    const url = await start(new HangingStore(), { deadlineMs: 100 });
    const messages = chatConversation('late', 1);
    const compressed = await postJson(`${url}/v1/compress`, { messages, model: 'gpt-4o' });
    expect(compressed.status).toBe(200);
    expect(compressed.json.messages).toEqual(messages);
    expect(compressed.json.tokens_saved).toBe(0);
    const hook = await postJson(`${url}/portkey/hook`, {
      request: { json: { model: 'gpt-4o', messages } },
      requestType: 'chatComplete',
      eventType: 'beforeRequestHook',
      metadata: {},
    });
    expect(hook.status).toBe(200);
    expect(hook.json).toEqual({ verdict: true });
    const why = lines.filter((l) => l.failOpen).map((l) => l.failOpen);
    expect(why).toEqual(['over the deadline of 100 ms', 'over the deadline of 100 ms']);
  });

  it('answers 200 with the input unchanged when the store fails, and logs why', async () => {
    const url = await start(new FailingStore());
    const messages = chatConversation('full', 1);
    const { status, json } = await postJson(`${url}/v1/compress`, { messages, model: 'gpt-4o' });
    expect(status).toBe(200);
    expect(json.messages).toEqual(messages);
    expect(lines.find((l) => l.path === '/v1/compress')?.failOpen).toContain('disk full');
  });

  it('bounds the body it reads', async () => {
    const url = await start(new MemoryStore(), { maxBodyBytes: 50_000 });
    const { status } = await postJson(`${url}/v1/compress`, { messages: chatConversation('big', 2) });
    expect(status).toBe(413);
  });
});
