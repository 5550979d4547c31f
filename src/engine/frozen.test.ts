import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/backends/memory-store.js';
import { FROZEN_PREFIX } from '../store/ids.js';
import type { Store } from '../store/store.js';
import { FrozenDecisions } from './frozen.js';

const LOG = { dir: 'sess', name: `${FROZEN_PREFIX}log` };

/** A memory store that counts writes of every kind and can be told to fail appends. */
function countingStore() {
  const inner = new MemoryStore();
  const counts = { writes: 0, failNext: 0 };
  const count =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      counts.writes++;
      if (counts.failNext > 0) {
        counts.failNext--;
        throw new Error('store down');
      }
      return write(...args);
    };
  const store: Store = {
    kind: inner.kind,
    limits: inner.limits,
    put: count((...a: Parameters<Store['put']>) => inner.put(...a)),
    putIfAbsent: count((...a: Parameters<Store['putIfAbsent']>) => inner.putIfAbsent(...a)),
    append: count((...a: Parameters<Store['append']>) => inner.append(...a)),
    get: (...a) => inner.get(...a),
    stat: (...a) => inner.stat(...a),
    list: (...a) => inner.list(...a),
    delete: (...a) => inner.delete(...a),
  };
  return { store, inner, counts };
}

describe('frozen decisions', () => {
  it('cost no store write on the turn itself, and one append after it however many there are', async () => {
    const { store, inner, counts } = countingStore();
    const frozen = new FrozenDecisions(store, 'sess');
    for (let i = 0; i < 5; i++)
      await frozen.set(`call${i}`, `hash${i}`, i % 2 ? {} : { content: `short ${i}` });
    expect(counts.writes).toBe(0);
    expect((await frozen.get('call2', 'hash2'))?.content).toBe('short 2');
    await frozen.flush();
    expect(counts.writes).toBe(1);
    // Another process (nothing cached, nothing in flight) replays every one of them.
    const later = new FrozenDecisions(inner, 'sess');
    expect((await later.get('call4', 'hash4'))?.content).toBe('short 4');
    expect(await later.get('call1', 'hash1')).toEqual({});
    expect(await later.get('call9', 'hash9')).toBeUndefined();
  });

  it('a new engine in the same process waits for the record still being written', async () => {
    const store = new MemoryStore();
    await new FrozenDecisions(store, 'sess').set('c', 'h', { content: 'x' });
    expect((await new FrozenDecisions(store, 'sess').get('c', 'h'))?.content).toBe('x');
  });

  it('holds a turn record until its answer is out, unless a flush or a new engine needs it', async () => {
    const { store, counts } = countingStore();
    const frozen = new FrozenDecisions(store, 'sess');
    let answered = () => {};
    const answer = new Promise<void>((resolve) => {
      answered = resolve;
    });
    await frozen.set('c1', 'h1', { content: 'one' }, answer);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(counts.writes).toBe(0);
    answered();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(counts.writes).toBe(1);

    // An answer that never ends does not hold the record from a flush (a clean shutdown)...
    await frozen.set('c2', 'h2', { content: 'two' }, new Promise(() => {}));
    await frozen.flush();
    expect(counts.writes).toBe(2);
    // ... nor from a new engine of the session in this process, which sees it at once.
    await frozen.set('c3', 'h3', { content: 'three' }, new Promise(() => {}));
    expect((await new FrozenDecisions(store, 'sess').get('c3', 'h3'))?.content).toBe('three');
    expect(counts.writes).toBe(3);
  });

  it('retries a record the store refused, and reports the failure once', async () => {
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

  it('keeps one log entry over a long session, the later decision for a result winning', async () => {
    const store = new MemoryStore();
    const frozen = new FrozenDecisions(store, 'sess');
    for (let turn = 0; turn < 150; turn++) {
      await frozen.set(`c${turn}`, 'h', { content: `t${turn}` });
      // A result decided again (masked after it was collapsed) replays its last decision.
      if (turn === 100) await frozen.set('c7', 'h', { content: 'masked' });
      await frozen.flush();
    }
    expect((await store.list('sess')).map((e) => e.name)).toEqual([LOG.name]);
    const later = new FrozenDecisions(store, 'sess');
    for (const turn of [0, 77, 149]) expect((await later.get(`c${turn}`, 'h'))?.content).toBe(`t${turn}`);
    expect((await later.get('c7', 'h'))?.content).toBe('masked');
  });

  it('loses only the record a crash cut short, not the ones written after it', async () => {
    const store = new MemoryStore();
    const first = new FrozenDecisions(store, 'sess');
    await first.set('a', 'h', { content: 'A' });
    await first.flush();
    // A process killed in the middle of its append leaves half a record.
    await store.append(LOG, Buffer.from('\n{"fz_cut":{"content":"hal'));
    const second = new FrozenDecisions(store, 'sess');
    expect((await second.get('a', 'h'))?.content).toBe('A');
    await second.set('b', 'h', { content: 'B' });
    await second.flush();
    const third = new FrozenDecisions(store, 'sess');
    expect((await third.get('a', 'h'))?.content).toBe('A');
    expect((await third.get('b', 'h'))?.content).toBe('B');
  });

  it('still replays decisions older versions stored as batches and single entries', async () => {
    const store = new MemoryStore();
    const writer = new FrozenDecisions(store, 'sess');
    await writer.set('new', 'h', { content: 'from the log' });
    await writer.flush();
    // The names older versions gave: the same key as the log's, in a batch or on its own.
    const [record] = (await store.get(LOG))?.toString().split('\n').filter(Boolean) ?? [];
    const key = Object.keys(JSON.parse(record ?? '{}'))[0] as string;
    await store.delete(LOG);
    await store.put(
      { dir: 'sess', name: `${FROZEN_PREFIX}batch_000000001_abcd` },
      Buffer.from(JSON.stringify({ [key]: { content: 'from a batch' } })),
    );
    expect((await new FrozenDecisions(store, 'sess').get('new', 'h'))?.content).toBe('from a batch');
    await store.delete({ dir: 'sess', name: `${FROZEN_PREFIX}batch_000000001_abcd` });
    await store.put({ dir: 'sess', name: key }, Buffer.from(JSON.stringify({ content: 'single' })));
    expect((await new FrozenDecisions(store, 'sess').get('new', 'h'))?.content).toBe('single');
  });
});
