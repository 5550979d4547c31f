import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CallKey } from '../../text/index.js';
import { LaterCalls } from './later-calls.js';
import { supersedes } from './supersede.js';

// Paths that share names and '/'-suffixes in every way samePath cares about.
const path = fc.constantFrom(
  'a.ts',
  './a.ts',
  'src/a.ts',
  '/repo/src/a.ts',
  'b/a.ts',
  'src/',
  'dir/src/',
  '',
  'x\0y',
  'x',
);
const part = fc.constantFrom('', 'offset=1', 'limit=5', 'y', '\0y');
const key: fc.Arbitrary<CallKey> = fc.oneof(
  fc.record({ kind: fc.constant('read' as const), path, part }),
  fc.record({ kind: fc.constant('edit' as const), paths: fc.array(path, { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('command' as const), command: fc.constantFrom('npm test', 'ls', 'a.ts') }),
);

describe('LaterCalls', () => {
  it('finds the same call as trying every later call, latest first', () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 40 }), (keys) => {
        const later = new LaterCalls();
        const scanned: { key: CallKey; id: string }[] = [];
        for (let i = keys.length - 1; i >= 0; i--) {
          const k = keys[i] as CallKey;
          const expected = scanned.find((l) => supersedes(k, l.key) !== undefined);
          const found = later.latestSuperseding(k);
          expect(found?.id).toBe(expected?.id);
          if (found) expect(supersedes(k, found.key)).toBeDefined();
          later.add(k, `t${i}`);
          scanned.push({ key: k, id: `t${i}` });
        }
      }),
      { numRuns: 2000 },
    );
  });
});
