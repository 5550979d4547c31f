import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import type { Store } from '../store/store.js';
import { FrozenDecisions } from './frozen.js';

/** A memory store that counts writes and can be told to fail them. */
function countingStore() {
  const inner = new MemoryStore();
  const counts = { puts: 0, failNext: 0 };
  const store: Store = Object.assign(Object.create(inner) as MemoryStore, {
    put: async (...args: Parameters<Store['put']>) => {
      counts.puts++;
      if (counts.failNext > 0) {
        counts.failNext--;
        throw new Error('store down');
      }
      return inner.put(...args);
    },
  });
  return { store, inner, counts };
}

describe('frozen decisions', () => {
  it('cost no store write on the turn itself, and one batch after it however many there are', async () => {
    const { store, inner, counts } = countingStore();
    const frozen = new FrozenDecisions(store, 'sess');
    for (let i = 0; i < 5; i++)
      await frozen.set(`call${i}`, `hash${i}`, i % 2 ? {} : { content: `short ${i}` });
    expect(counts.puts).toBe(0);
    expect((await frozen.get('call2', 'hash2'))?.content).toBe('short 2');
    await frozen.flush();
    expect(counts.puts).toBe(1);
    // Another process (nothing cached, nothing in flight) replays every one of them.
    const later = new FrozenDecisions(inner, 'sess');
    expect((await later.get('call4', 'hash4'))?.content).toBe('short 4');
    expect(await later.get('call1', 'hash1')).toEqual({});
    expect(await later.get('call9', 'hash9')).toBeUndefined();
  });

  it('a new engine in the same process waits for the batch still being written', async () => {
    const store = new MemoryStore();
    await new FrozenDecisions(store, 'sess').set('c', 'h', { content: 'x' });
    expect((await new FrozenDecisions(store, 'sess').get('c', 'h'))?.content).toBe('x');
  });

  it('retries a batch the store refused, and reports the failure once', async () => {
    const { store, inner, counts } = countingStore();
    const frozen = new FrozenDecisions(store, 'sess');
    counts.failNext = 1;
    await frozen.set('a', 'h', { content: 'A' });
    await frozen.flush();
    expect(frozen.takeFailures()).toBe(1);
    expect(frozen.takeFailures()).toBe(0);
    await frozen.set('b', 'h', { content: 'B' });
    await frozen.flush();
    const later = new FrozenDecisions(inner, 'sess');
    expect((await later.get('a', 'h'))?.content).toBe('A');
    expect((await later.get('b', 'h'))?.content).toBe('B');
  });

  it('keeps the number of batches bounded over a long session', async () => {
    const store = new MemoryStore();
    const frozen = new FrozenDecisions(store, 'sess');
    for (let turn = 0; turn < 150; turn++) {
      await frozen.set(`c${turn}`, 'h', { content: `t${turn}` });
      await frozen.flush();
    }
    expect((await store.list('sess')).length).toBeLessThanOrEqual(64);
    const later = new FrozenDecisions(store, 'sess');
    for (const turn of [0, 77, 149]) expect((await later.get(`c${turn}`, 'h'))?.content).toBe(`t${turn}`);
  });
});
