import { describe, expect, it } from 'vitest';
import { boundedMemo } from './bounded-memo.js';

describe('boundedMemo', () => {
  it('computes each key once while it is remembered', () => {
    let calls = 0;
    const twice = boundedMemo((k) => {
      calls++;
      return k + k;
    }, 4);
    expect(twice('a')).toBe('aa');
    expect(twice('a')).toBe('aa');
    expect(calls).toBe(1);
  });

  it('never holds more than max answers, whatever keys it is given', () => {
    const seen: string[] = [];
    const id = boundedMemo((k) => {
      seen.push(k);
      return k;
    }, 3);
    for (let i = 0; i < 10; i++) id(`k${i}`);
    // Starting over after the third key: k0 is computed again, k9 is still remembered.
    id('k0');
    id('k9');
    expect(seen.filter((k) => k === 'k0')).toHaveLength(2);
    expect(seen.filter((k) => k === 'k9')).toHaveLength(1);
  });
});
