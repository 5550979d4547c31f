import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requiredTexts, safePattern } from './safe-pattern.js';

describe('safe patterns', () => {
  it('finds the plain text every match must contain, and none where there is none', () => {
    expect(requiredTexts('FATAL payment-service')).toEqual(['FATAL payment-service']);
    expect(requiredTexts('ERROR|FAIL')).toEqual(['ERROR', 'FAIL']);
    expect(requiredTexts('foo\\.bar(baz)?')).toEqual(['foo.bar']);
    expect(requiredTexts('x?abc')).toEqual(['abc']);
    expect(requiredTexts('TypeError: .*undefined')).toEqual(['TypeError: ']);
    expect(requiredTexts('^(a+)+$')).toBeUndefined();
    expect(requiredTexts('error|.*')).toBeUndefined();
  });

  it('property: matches exactly what the regular expression matches', () => {
    const atom = fc.constantFrom('a', 'b', 'ab', '\\.', '.', '[ab]', '(a|b)', 'x', ' ', '\\d', '1');
    const piece = fc.tuple(atom, fc.constantFrom('', '', '?', '*', '+')).map(([a, q]) => a + q);
    const alternative = fc.array(piece, { minLength: 1, maxLength: 5 }).map((p) => p.join(''));
    const pattern = fc.array(alternative, { minLength: 1, maxLength: 3 }).map((a) => a.join('|'));
    const line = fc.stringMatching(/^[abx1. ]{0,12}$/);
    fc.assert(
      fc.property(pattern, fc.array(line, { maxLength: 8 }), fc.boolean(), (p, lines, fold) => {
        const safe = safePattern(p, { ignoreCase: fold });
        const plain = new RegExp(p, fold ? 'i' : '');
        for (const l of lines) expect(safe.test(l), `${p} on ${JSON.stringify(l)}`).toBe(plain.test(l));
      }),
      { numRuns: 400 },
    );
  });
});
