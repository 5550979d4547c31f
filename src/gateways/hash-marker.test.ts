import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/index.js';
import { GATEWAY_HASH, hashOfRecallId, lookupHash, recordHashes, withHashMarkers } from './hash-marker.js';

const recallId = fc.stringMatching(/^[A-Za-z0-9_-]{22}$/);
const prose = fc.string({ maxLength: 40 }).map((s) => s.replaceAll('<', '').replaceAll('hash=', ''));

describe('the hash marker', () => {
  it('writes one hash after each marker spillway wrote, none after the client own, and writing twice changes nothing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(prose, recallId), { minLength: 1, maxLength: 5 }),
        recallId,
        (parts, theirs) => {
          const before = `the client wrote <<sw:${theirs}>> itself`;
          const after = `${before}\n${parts.map(([text, id]) => `${text} spillway_expand <<sw:${id}>>`).join('\n')}`;
          const once = withHashMarkers(after, before);
          expect(withHashMarkers(once.text, before).text).toBe(once.text);
          for (const [, id] of parts) expect(once.text).toContain(`<<sw:${id}>> hash=${hashOfRecallId(id)}`);
          if (!parts.some(([, id]) => id === theirs)) expect(once.text).toContain(`<<sw:${theirs}>> itself`);
          for (const [hash, id] of once.issued) {
            expect(hash).toMatch(GATEWAY_HASH);
            expect(hashOfRecallId(id)).toBe(hash);
          }
        },
      ),
    );
  });

  it('finds only what was recorded, and checks a hash before making it a key', async () => {
    const store = new MemoryStore();
    const id = 'LPJNul-wow4m6Dsqxbning';
    const hash = hashOfRecallId(id);
    expect(await lookupHash(store, hash)).toBeUndefined();
    await recordHashes(store, new Map([[hash, id]]), () => new Map([[id, 'Bash']]));
    expect(await lookupHash(store, hash)).toEqual({ id, tool: 'Bash' });
    for (const bad of ['../../etc/passwd', hash.toUpperCase(), `${hash}0`, ''])
      expect(await lookupHash(store, bad)).toBeUndefined();
  });
});
