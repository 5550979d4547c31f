/**
 * Rarity: what stands out in an output no rule knows. Lines are reduced to templates as Drain
 * does (numbers, hex ids and hashes masked; split into tokens; in each group of lines with as
 * many tokens, a position whose values vary widely becomes a wildcard). A line is rare when
 * its template is (the output being mostly a few frequent ones), or when at a position where
 * nearly every line of its group agrees it says something else: the one CrashLoopBackOff row
 * among 600 Running ones, `state=DEGRADED` in a log of `state=HEALTHY`, the odd JSON record.
 */

import { shapeOf } from './shape.js';

/** A line that stands out, and why. */
export interface RareLine {
  line: number;
  start: number;
  end: number;
  /** Lines of the output with its template (1: no other line is like it). */
  templateCount: number;
  /** Positions where its group agrees on another value. */
  oddPositions: number;
}

// How much of a text is analysed: all of it up to this many characters; past that its first
// quarter and last three quarters of this much (as the rules' scan looks at a long text's ends).
export const RARITY_SCAN_CHARS = 512 * 1024;
// Fewer analysed lines than this say nothing about what is usual.
const MIN_LINES = 20;
// A group (lines with as many tokens) smaller than this has no positions to agree on.
const MIN_GROUP = 8;
// A position is a wildcard when its values are this varied (share of its group's lines).
const WILDCARD_SHARE = 0.05;
// A position agrees when one value is this share of its group, and a value is odd there when
// at most this share (or one line) has it.
const AGREE_SHARE = 0.9;
const ODD_SHARE = 0.002;
// A template is frequent from this many lines; templates are informative when frequent ones
// hold this share of the lines; a template of at most RARE_TEMPLATE lines is then rare.
const FREQUENT = 5;
const DOMINANT_SHARE = 0.6;
const RARE_TEMPLATE = 2;
// The most rare lines returned: past that the output is diverse, not repetitive.
const RARE_LIMIT = 12;
const MAX_TOKENS = 32;
const SPLIT = /[\s"'`,;:=(){}[\]<>|]+/;

interface Analysed {
  line: number;
  start: number;
  end: number;
  tokens: string[];
}

/**
 * The rare lines of `text` (at most a dozen, rarest first, then in order). `lines` is the
 * text's line count (scanLines gives it), which numbers the lines of its tail.
 *
 * @example
 * const pods = [...Array(600)].map((_, i) => `api-${i}   1/1   Running   0   30m`);
 * pods.splice(300, 0, 'api-x   0/1   CrashLoopBackOff   12   30m');
 * rareLines(pods.join('\n'), 601)[0]?.line; // 300
 */
export function rareLines(text: string, lines: number): RareLine[] {
  const analysed = analyse(text, lines);
  if (analysed.length < MIN_LINES) return [];
  const groups = new Map<number, Analysed[]>();
  for (const a of analysed) {
    const group = groups.get(a.tokens.length);
    if (group) group.push(a);
    else groups.set(a.tokens.length, [a]);
  }
  const templates = new Map<string, number>();
  const templateOf = new Map<Analysed, string>();
  const odd = new Map<Analysed, number>();
  for (const group of groups.values()) {
    // A group whose positions mostly vary is prose or code, not records of one kind: its lines
    // are taken as they are (a source file's lines are each their own template).
    const stats = group.length >= MIN_GROUP ? positionStats(group) : [];
    const fixed = stats.filter((s) => !s.wildcard).length;
    const positions = fixed >= Math.max(2, stats.length / 2) ? stats : [];
    for (const a of group) {
      let oddHere = 0;
      const template = a.tokens
        .map((token, p) => {
          const stats = positions[p];
          if (!stats) return token;
          if (stats.wildcard) return '*';
          const n = stats.counts.get(token) ?? 0;
          if (stats.top >= group.length * AGREE_SHARE && n <= Math.max(1, group.length * ODD_SHARE))
            oddHere++;
          return token;
        })
        .join(' ');
      templateOf.set(a, template);
      templates.set(template, (templates.get(template) ?? 0) + 1);
      if (oddHere > 0) odd.set(a, oddHere);
    }
  }
  let frequent = 0;
  for (const a of analysed) if ((templates.get(templateOf.get(a) as string) ?? 0) >= FREQUENT) frequent++;
  const dominant = frequent >= analysed.length * DOMINANT_SHARE;
  const rare: RareLine[] = [];
  for (const a of analysed) {
    const templateCount = templates.get(templateOf.get(a) as string) ?? 0;
    const oddPositions = odd.get(a) ?? 0;
    if (oddPositions > 0 || (dominant && templateCount <= RARE_TEMPLATE))
      rare.push({ line: a.line, start: a.start, end: a.end, templateCount, oddPositions });
  }
  // Odd at an agreed position first, then by the rarity of the template, then in order.
  rare.sort(
    (x, y) => y.oddPositions - x.oddPositions || x.templateCount - y.templateCount || x.line - y.line,
  );
  return rare.slice(0, RARE_LIMIT).sort((x, y) => x.line - y.line);
}

function positionStats(
  group: readonly Analysed[],
): { counts: Map<string, number>; top: number; wildcard: boolean }[] {
  const width = group[0]?.tokens.length ?? 0;
  const out: { counts: Map<string, number>; top: number; wildcard: boolean }[] = [];
  for (let p = 0; p < width; p++) {
    const counts = new Map<string, number>();
    for (const a of group) {
      const token = a.tokens[p] as string;
      counts.set(token, (counts.get(token) ?? 0) + 1);
    }
    let top = 0;
    for (const n of counts.values()) if (n > top) top = n;
    out.push({ counts, top, wildcard: counts.size > Math.max(2, group.length * WILDCARD_SHARE) });
  }
  return out;
}

/** The non-blank lines of the analysed stretches, with their tokens. */
function analyse(text: string, lines: number): Analysed[] {
  const out: Analysed[] = [];
  const long = text.length > RARITY_SCAN_CHARS;
  const headEnd = long ? RARITY_SCAN_CHARS / 4 : text.length;
  const visit = (from: number, to: number, firstLine: number) => {
    let line = firstLine;
    for (let start = from; start < to; line++) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      // A line the stretch cuts would look like no other: it is left out.
      if (end > to) break;
      const tokens = shapeOf(text.slice(start, Math.min(end, start + 300)))
        .split(SPLIT)
        .filter(Boolean)
        .slice(0, MAX_TOKENS);
      if (tokens.length > 0) out.push({ line, start, end, tokens });
      start = end + 1;
    }
  };
  visit(0, headEnd, 0);
  if (long) {
    // The tail from a line start; its lines numbered back from the last.
    const tailFrom = text.indexOf('\n', text.length - (RARITY_SCAN_CHARS * 3) / 4) + 1;
    let tailLines = 1;
    for (let at = text.indexOf('\n', tailFrom); at >= 0; at = text.indexOf('\n', at + 1)) tailLines++;
    if (tailFrom > headEnd) visit(tailFrom, text.length, lines - tailLines);
  }
  return out;
}
