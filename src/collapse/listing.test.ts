import { describe, expect, it } from 'vitest';
import { cutListingLine, identifyingEnd, LISTING_RULES } from './listing.js';

describe('listing rules', () => {
  for (const rule of LISTING_RULES)
    it(`${rule.name}: finds the identifying part of its examples`, () => {
      for (const [line, part] of rule.examples) {
        expect(rule.pattern.exec(line)?.[0], line).toBe(part);
        expect(line.slice(0, identifyingEnd(line)), `${line}: no earlier rule takes it`).toBe(part);
      }
    });

  it('names nothing in a line of prose or a log line, which are cut like any other', () => {
    expect(identifyingEnd('The quick brown fox jumps over the lazy dog and keeps running')).toBe(0);
  });

  it('cuts at the limit but never inside the identifying part, with a mark counting the rest', () => {
    const line = `3. [Title](https://example.com/a) — ${'snippet '.repeat(50)}`;
    expect(cutListingLine(line, 20).startsWith('3. [Title](https://example.com/a) …(+')).toBe(true);
    const cut = cutListingLine(line, 60);
    expect(cut).toMatch(/ …\(\+\d+ chars\)$/);
    const kept = cut.slice(0, cut.indexOf(' …(+'));
    expect(kept).toBe(line.slice(0, 60));
    expect(Number(/\(\+(\d+) chars/.exec(cut)?.[1])).toBe(line.length - kept.length);
    expect(cutListingLine('short', 20)).toBe('short');
  });
});
