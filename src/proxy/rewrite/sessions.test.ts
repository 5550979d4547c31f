import { describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../../engine/config.js';
import { MemoryStore } from '../../store/backends/memory-store.js';
import { SessionTable, sessionKey } from './sessions.js';

describe('sessions', () => {
  it('keys by the header when it is a valid id, else by a hash', () => {
    expect(sessionKey({ header: 'my-session_1', seed: 'seed' })).toBe('my-session_1');
    expect(sessionKey({ header: '../evil', seed: 'seed' })).toMatch(/^s_[\w-]{22}$/);
    expect(sessionKey({ seed: 'seed' })).toBe(sessionKey({ seed: 'seed' }));
    expect(sessionKey({ seed: 'seed' })).not.toBe(sessionKey({ seed: 'other' }));
  });

  it("keys by the client's own conversation id before any content", () => {
    const a = sessionKey({ client: 'session_1', seed: 'same system prompt' });
    expect(a).toMatch(/^c_[\w-]{22}$/);
    expect(sessionKey({ client: 'session_2', seed: 'same system prompt' })).not.toBe(a);
    expect(sessionKey({ client: 'session_1', seed: 'moved cache_control' })).toBe(a);
    expect(sessionKey({ header: 'pinned', client: 'session_1', seed: '' })).toBe('pinned');
  });

  it('bounds memory by count and by age, least recently seen first', async () => {
    const table = new SessionTable(
      { config: resolveEngineConfig(), store: new MemoryStore() },
      { maxSessions: 3, maxAgeMs: 1000 },
    );
    const see = (key: string, now: number) => table.get(key, now).turn({ results: [], messageCount: 5, now });
    for (const k of ['a', 'b', 'c']) await see(k, 0);
    await see('a', 10);
    await see('d', 20);
    expect(table.size).toBe(3);
    // b was the least recently seen, so it went; a, c, d remain.
    expect(table.get('a', 30).boundary).toBe(5);
    expect(table.get('b', 40)).toMatchObject({ boundary: 0, lastSeen: undefined });
    // Past the age limit a session starts over (its frozen decisions stay in the store).
    expect(table.get('a', 5000)).toMatchObject({ boundary: 0, lastSeen: undefined });
  });
});
