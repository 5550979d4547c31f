import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import { SessionTable, sessionKey } from './sessions.js';

describe('sessions', () => {
  it('keys by the header when it is a valid id, else by a hash', () => {
    expect(sessionKey('my-session_1', 'seed')).toBe('my-session_1');
    expect(sessionKey('../evil', 'seed')).toMatch(/^s_[\w-]{22}$/);
    expect(sessionKey(undefined, 'seed')).toBe(sessionKey(undefined, 'seed'));
    expect(sessionKey(undefined, 'seed')).not.toBe(sessionKey(undefined, 'other'));
  });

  it('bounds memory by count and by age, least recently seen first', () => {
    const table = new SessionTable(new MemoryStore(), { maxSessions: 3, maxAgeMs: 1000 });
    for (const k of ['a', 'b', 'c']) table.get(k, 0).state.maxCachedIdx = 5;
    table.get('a', 10);
    table.get('d', 20);
    expect(table.size).toBe(3);
    // b was the least recently seen, so it went; a, c, d remain.
    expect(table.get('a', 30).isNew).toBe(false);
    expect(table.get('b', 40)).toMatchObject({ isNew: true, state: { maxCachedIdx: 0 } });
    // Past the age limit a session starts over (its frozen decisions stay in the store).
    expect(table.get('a', 5000).isNew).toBe(true);
  });
});
