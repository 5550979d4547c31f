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

  it('finds matches that take quantifier bounds or escape payloads (not text) to match', () => {
    for (const [pattern, line] of [
      ['\\d{10}', 'order 1234567890 failed'],
      ['[0-9]{10}', '1234567890'],
      ['a{2,3}', 'caab'],
      ['\\x41\\x42', 'zABz'],
      ['\\u0041B', 'AB'],
      ['\\x74riple', 'triple'],
    ] as const)
      expect(safePattern(pattern).test(line), pattern).toBe(true);
  });

  it('says why a count past 16 is refused, and what to write instead', () => {
    expect(() => safePattern('[0-9a-f]{40}')).toThrow(/counts a repetition past 16 \(\{40\}\).*use \+ or \*/);
    expect(() => safePattern('(a)\\1')).toThrow(/backreference or lookaround/);
    expect(safePattern('[0-9a-f]{16}').test('0123456789abcdef')).toBe(true);
  });

  it('property: matches exactly what the regular expression matches', () => {
    // Escapes whose payload is not text (\x61 is "a"), and counted repetitions ({2}, {1,3}).
    const atom = fc.constantFrom(
      'a',
      'b',
      'ab',
      '\\.',
      '.',
      '[ab]',
      '(a|b)',
      'x',
      ' ',
      '\\d',
      '1',
      '\\x61',
      '\\u0062',
      '\\x31',
      '[0-9]',
      '\\d\\d',
    );
    const piece = fc
      .tuple(atom, fc.constantFrom('', '', '?', '*', '+', '{2}', '{1,3}', '{0,2}', '{2,}'))
      .map(([a, q]) => a + q);
    const alternative = fc.array(piece, { minLength: 1, maxLength: 5 }).map((p) => p.join(''));
    const pattern = fc.array(alternative, { minLength: 1, maxLength: 3 }).map((a) => a.join('|'));
    const line = fc.stringMatching(/^[abx1-3. ]{0,14}$/);
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
