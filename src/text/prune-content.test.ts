import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ContentBlock, isTextBlock } from './blocks.js';
import { graphemeBoundaryAtOrBefore } from './grapheme.js';
import { measureContent, pruneContent, resolvePruneConfig } from './prune-content.js';

const small = resolvePruneConfig({ thresholdChars: 200, headChars: 60, tailChars: 40 });
const image = (n: number) => ({
  type: 'image',
  source: { type: 'base64', media_type: 'image/png', data: `img${n}` },
});

describe('pruneContent', () => {
  it('is null within budget, and cuts [head, total - tail) across text blocks otherwise', () => {
    expect(pruneContent('x'.repeat(200), small)).toBeNull();
    const text = `${'a'.repeat(200)}${'b'.repeat(200)}`;
    const r = pruneContent(text, small);
    expect(r?.content).toBe(`${'a'.repeat(60)}\n[...pruned 300 chars...]\n${'b'.repeat(40)}`);
    expect(r?.removed).toBe(300);
  });

  it('keeps rich blocks in order and place, puts the marker once where the cut starts, drops emptied text blocks', () => {
    const blocks: ContentBlock[] = [
      { type: 'text', text: 'h'.repeat(80) },
      image(1),
      { type: 'text', text: 'm'.repeat(120) },
      image(2),
      { type: 'text', text: 't'.repeat(80) },
    ];
    const r = pruneContent(blocks, small);
    expect(r?.content).toEqual([
      { type: 'text', text: `${'h'.repeat(60)}\n[...pruned 180 chars...]\n` },
      image(1),
      image(2),
      { type: 'text', text: 't'.repeat(40) },
    ]);
  });

  it('names the stash id in the marker when the middle was stashed', () => {
    expect(pruneContent('z'.repeat(300), small, 'AbC')?.content).toContain(
      '[...pruned 200 chars; spillway_expand <<sw:AbC>>]',
    );
  });

  it('validates its config with clear errors and freezes it', () => {
    expect(() => resolvePruneConfig({ treshold: 5 } as never)).toThrow(
      /unknown key "treshold"; allowed: thresholdChars, headChars, tailChars, graphemes/,
    );
    expect(() => resolvePruneConfig({ headChars: -1 })).toThrow(/"headChars" must be a whole number >= 0/);
    expect(() => resolvePruneConfig({ thresholdChars: 100, headChars: 60, tailChars: 30 })).toThrow(
      /must fit in thresholdChars \(100\)/,
    );
    expect(Object.isFrozen(resolvePruneConfig())).toBe(true);
    expect(resolvePruneConfig()).toEqual({
      thresholdChars: 8192,
      headChars: 4096,
      tailChars: 1024,
      graphemes: false,
    });
  });

  it('keeps grapheme clusters whole when asked', () => {
    const family = '👩‍👩‍👧‍👦';
    const text = family.repeat(60);
    const r = pruneContent(
      text,
      resolvePruneConfig({ thresholdChars: 150, headChars: 31, tailChars: 20, graphemes: true }),
    );
    const out = r?.content as string;
    const head = out.slice(0, out.indexOf('\n[...pruned'));
    expect(graphemeBoundaryAtOrBefore(text, head.length)).toBe(head.length);
    expect(text.startsWith(head)).toBe(true);
  });
});

describe('pruneContent properties', () => {
  const textBlock = fc
    .oneof(fc.string({ unit: 'binary', maxLength: 120 }), fc.string({ unit: 'grapheme', maxLength: 60 }))
    .map((text) => ({ type: 'text', text }));
  const richBlock = fc.integer({ min: 0, max: 999 }).map((n) => ({
    type: fc.sample(fc.constantFrom('image', 'document', 'search_result'), 1)[0] as string,
    id: n,
  }));
  const blocks = fc.array(fc.oneof(textBlock, textBlock, richBlock), { maxLength: 12 });

  it('never splits a surrogate pair, stays within the threshold, and always shrinks (astral-plane text)', () => {
    fc.assert(
      fc.property(blocks, fc.boolean(), (content, graphemes) => {
        const config = resolvePruneConfig({ thresholdChars: 200, headChars: 50, tailChars: 30, graphemes });
        const r = pruneContent(content as ContentBlock[], config);
        const total = measureContent(content as ContentBlock[]);
        if (total <= 200) {
          expect(r).toBeNull();
          return;
        }
        const out = r?.content as ContentBlock[];
        for (const b of out) if (isTextBlock(b)) expect(b.text.isWellFormed()).toBe(true);
        expect(measureContent(out)).toBeLessThanOrEqual(200);
        expect(measureContent(out)).toBeLessThan(total);
        expect(out.filter((b) => isTextBlock(b) && b.text === '')).toEqual([]);
        expect(out.filter((b) => isTextBlock(b) && b.text.includes('[...pruned'))).toHaveLength(1);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps every rich block, in order', () => {
    fc.assert(
      fc.property(blocks, (content) => {
        const r = pruneContent(content as ContentBlock[], small);
        const rich = (list: readonly ContentBlock[]) => list.filter((b) => !isTextBlock(b));
        expect(rich((r?.content as ContentBlock[] | undefined) ?? (content as ContentBlock[]))).toEqual(
          rich(content as ContentBlock[]),
        );
      }),
      { numRuns: 400 },
    );
  });

  it('accepts every config dsh accepts, and never exceeds the threshold, with an id or a raw config', () => {
    for (const [thresholdChars, headChars, tailChars] of [
      [100, 20, 20],
      [50, 4, 3],
    ] as const) {
      const config = resolvePruneConfig({ thresholdChars, headChars, tailChars });
      for (const size of [thresholdChars + 1, 5_000, 2_000_000]) {
        const text = 'x'.repeat(size);
        for (const id of [undefined, 'A'.repeat(22)]) {
          const out = pruneContent(text, config, id);
          expect(measureContent(out?.content ?? ''), `${thresholdChars}/${size}/${id}`).toBeLessThanOrEqual(
            thresholdChars,
          );
        }
      }
    }
    expect(resolvePruneConfig({ thresholdChars: 2000 })).toMatchObject({ headChars: 1000, tailChars: 250 });
    // A raw config, never resolved, is held to its threshold too (a plain cut when no marker fits).
    const raw = { thresholdChars: 10, headChars: 4096, tailChars: 1024, graphemes: false };
    const out = pruneContent('y'.repeat(5000), raw, 'B'.repeat(22));
    expect(measureContent(out?.content ?? '')).toBeLessThanOrEqual(10);
  });
});
