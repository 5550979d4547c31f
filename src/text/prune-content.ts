import { z } from 'zod';
import { flag, parseConfig, wholeNumber } from '../config-schema.js';
import { SpillwayError } from '../errors.js';
import { type Content, type ContentBlock, isTextBlock, type TextBlock } from './blocks.js';
import { graphemeBoundaryAtOrAfter, graphemeBoundaryAtOrBefore } from './grapheme.js';
import { pruneMarker } from './markers.js';
import { codePointLength, codePointPrefixEnd, codePointSuffixStart } from './measure.js';

/** Character budgets of {@link pruneContent}, in Unicode code points; every key optional. */
export const PruneConfigSchema = z.strictObject({
  /** Content at or under this many code points is left alone (default 8192). */
  thresholdChars: wholeNumber(0).optional(),
  /** Code points kept from the start (default 4096) and from the end (default 1024). */
  headChars: wholeNumber(0).optional(),
  tailChars: wholeNumber(0).optional(),
  /** Move cuts to grapheme-cluster boundaries (never split an emoji or an accent). */
  graphemes: flag().optional(),
});
export type PruneConfig = Required<z.infer<typeof PruneConfigSchema>>;

export const DEFAULT_PRUNE_CONFIG: Readonly<PruneConfig> = Object.freeze({
  thresholdChars: 8192,
  headChars: 4096,
  tailChars: 1024,
  graphemes: false,
});

/**
 * Validates a prune config (unknown keys, non-integers, and budgets where head + marker + tail
 * would not fit under the threshold are errors that say what to change) and freezes it.
 *
 * @example
 * resolvePruneConfig({ thresholdChars: 20_000 }); // { thresholdChars: 20000, headChars: 4096, tailChars: 1024, graphemes: false }
 */
export function resolvePruneConfig(
  config: Partial<PruneConfig> | Record<string, unknown> = {},
): Readonly<PruneConfig> {
  const given = parseConfig(PruneConfigSchema, config, 'prune config');
  const set = Object.entries(given).filter(([, value]) => value !== undefined);
  const merged: PruneConfig = { ...DEFAULT_PRUNE_CONFIG, ...Object.fromEntries(set) };
  // A threshold alone scales head and tail with it, as dsh's 4096 and 1024 are of 8192.
  if (given.thresholdChars !== undefined) {
    if (given.headChars === undefined) merged.headChars = Math.floor(merged.thresholdChars / 2);
    if (given.tailChars === undefined) merged.tailChars = Math.floor(merged.thresholdChars / 8);
  }
  // The marker this config produces for the smallest input it prunes (one code point over).
  const marker = codePointLength(
    pruneMarker(merged.thresholdChars + 1 - merged.headChars - merged.tailChars),
  );
  if (merged.headChars + marker + merged.tailChars > merged.thresholdChars) {
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `prune config: headChars (${merged.headChars}) + the marker (${marker}) + tailChars (${merged.tailChars}) must fit in thresholdChars (${merged.thresholdChars}); lower headChars/tailChars or raise thresholdChars`,
    );
  }
  return Object.freeze(merged);
}

/**
 * Code points of the text blocks; images, documents and other blocks cost zero.
 *
 * @example
 * measureContent([{ type: 'text', text: 'a😀' }, { type: 'image', source: {} }]); // 2
 */
export function measureContent(content: Content): number {
  if (typeof content === 'string') return codePointLength(content);
  let n = 0;
  for (const block of content) if (isTextBlock(block)) n += codePointLength(block.text);
  return n;
}

/**
 * The code-unit index in `text` (of `length` code points) after `points` code points, moved to
 * a grapheme boundary when asked: a cut near the end of a megabyte text walks back from the end,
 * not forward from the start.
 */
function cutIndex(
  text: string,
  points: number,
  length: number,
  graphemes: boolean,
  direction: 'before' | 'after',
): number {
  // The walk back is a loop over code points and the search forward a native scan about ten
  // times faster, so the walk is taken only for a cut much nearer the end.
  const fromEnd = length - points;
  const at = fromEnd * 16 < points ? codePointSuffixStart(text, fromEnd) : codePointPrefixEnd(text, points);
  if (!graphemes) return at;
  return direction === 'before' ? graphemeBoundaryAtOrBefore(text, at) : graphemeBoundaryAtOrAfter(text, at);
}

/**
 * Head and tail for an input of `total` code points: the config's, narrowed (tail first, in
 * their ratio) until head + marker + tail fits the threshold; no marker at all when not even
 * the marker alone fits.
 */
function fitWindow(
  total: number,
  config: Readonly<PruneConfig>,
  stashId: string | undefined,
): { head: number; tail: number; marked: boolean } {
  const threshold = config.thresholdChars;
  let head = Math.min(config.headChars, threshold);
  let tail = Math.min(config.tailChars, threshold - head);
  for (let round = 0; round < 4; round++) {
    const marker = codePointLength(pruneMarker(total - head - tail, stashId));
    const room = threshold - marker;
    if (room < 0) return { head: threshold, tail: 0, marked: false };
    if (head + tail <= room) return { head, tail, marked: true };
    const share = head + tail === 0 ? 0.5 : head / (head + tail);
    head = Math.floor(room * share);
    tail = room - head;
  }
  return { head, tail, marked: true };
}

/**
 * Removes the middle of over-budget content: the code points `[headChars, total - tailChars)`
 * across the text blocks. Rich blocks keep their order and place; the marker goes in once where
 * the cut starts; text blocks left empty are dropped. Null when the content is within the
 * threshold; otherwise the result is within it and smaller than the input. A string stays a
 * string. Slicing is by code point, so a surrogate pair is never split.
 *
 * @example
 * pruneContent([{ type: 'text', text: log }, image], resolvePruneConfig()); // [{ type: 'text', text: head + marker + tail }, image]
 */
export function pruneContent(
  content: Content,
  config: Readonly<PruneConfig> = DEFAULT_PRUNE_CONFIG,
  stashId?: string,
): { content: Content; removed: number; middle: string } | null {
  const blocks: ContentBlock[] =
    typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
  // Never more code points than UTF-16 units: content that short is within the threshold unmeasured.
  const units = blocks.reduce((n, b) => n + (isTextBlock(b) ? b.text.length : 0), 0);
  if (units <= config.thresholdChars) return null;
  const lengths = blocks.map((b) => (isTextBlock(b) ? codePointLength(b.text) : 0));
  const total = lengths.reduce((a, b) => a + b, 0);
  if (total <= config.thresholdChars) return null;
  // A larger input, or a recall id, makes the marker wider than the config was checked with:
  // the head and tail give it room, so the result never exceeds the threshold.
  const { head, tail, marked } = fitWindow(total, config, stashId);
  const cutStart = head;
  const cutEnd = total - tail;
  const out: ContentBlock[] = [];
  let offset = 0;
  let removed = 0;
  let middle = '';
  let markerAt: { block: number; index: number } | null = null;
  for (const [k, block] of blocks.entries()) {
    if (!isTextBlock(block)) {
      out.push(block);
      continue;
    }
    const text = block.text;
    const length = lengths[k] as number;
    const start = offset;
    const end = offset + length;
    offset = end;
    if (end <= cutStart || start >= cutEnd) {
      out.push(block);
      continue;
    }
    // This block overlaps the cut: keep what lies before cutStart and after cutEnd.
    const keepHead = Math.max(0, cutStart - start);
    const keepTailFrom = Math.min(length, cutEnd - start);
    const headEnd = cutIndex(text, keepHead, length, config.graphemes, 'before');
    const tailStart = Math.max(headEnd, cutIndex(text, keepTailFrom, length, config.graphemes, 'after'));
    const cutText = text.slice(headEnd, tailStart);
    // Cuts at code points remove exactly the points between them; grapheme snapping moves them.
    removed += config.graphemes ? codePointLength(cutText) : keepTailFrom - keepHead;
    middle += cutText;
    const kept = text.slice(0, headEnd) + text.slice(tailStart);
    markerAt ??= { block: out.length, index: headEnd };
    out.push({ ...block, text: kept } as TextBlock);
  }
  // The cut range is never empty and lies in text, so some text block holds its start.
  const at = markerAt as { block: number; index: number };
  const b = out[at.block] as TextBlock;
  // A threshold too small for any marker gets a plain cut, like snip's.
  const marker = marked ? pruneMarker(removed, stashId) : '';
  out[at.block] = { ...b, text: b.text.slice(0, at.index) + marker + b.text.slice(at.index) };
  const result = out.filter((b) => !isTextBlock(b) || b.text.length > 0);
  return {
    content: typeof content === 'string' ? ((result[0] as TextBlock).text ?? '') : result,
    removed,
    middle,
  };
}
