/**
 * What names an item of a listing (a search hit, a grep match, a file, a record): the part a
 * reader needs of every item before any item is dropped. Named rules with examples, tried in
 * order; each gives where the identifying part of a line ends.
 */

import { codePointFloor, codePointLength, listingCutMark } from '../text/index.js';

/** A rule that finds where a listing line's identifying part ends. */
export type ListingRule = {
  name: string;
  /** Matches from the line's start; the match's end is the identifying part's end. */
  pattern: RegExp;
  /** A line and the identifying part the rule finds in it. */
  examples: readonly (readonly [line: string, part: string])[];
};

// The identifying part is looked for this far into a line: past it, the line is not an item's name.
const ID_SEARCH_CHARS = 400;

/** The listing rules, most specific first. */
export const LISTING_RULES: readonly ListingRule[] = [
  {
    name: 'markdown link',
    pattern: /^[^[\n]{0,40}\[[^\]\n]{1,300}\]\([^)\s]{1,300}\)/,
    examples: [
      [
        '3. [Fixing prompt is too long](https://example.com/a) — When the agent reads a 2 MB log…',
        '3. [Fixing prompt is too long](https://example.com/a)',
      ],
    ],
  },
  {
    name: 'up to a URL',
    pattern: /^[^\n]{0,200}?\bhttps?:\/\/[^\s)>\]"']+/,
    examples: [
      [
        'Title: Rate limits | URL: https://docs.example.com/limits Snippet: Requests are limited…',
        'Title: Rate limits | URL: https://docs.example.com/limits',
      ],
      ['https://example.com/x?q=1 - a page about x', 'https://example.com/x?q=1'],
    ],
  },
  {
    name: 'path and line',
    pattern: /^[\w.@~+-]*[/\\][^\s:]*(?::\d+)+:?|^[\w.-]+\.\w{1,8}(?::\d+)+:?/,
    examples: [
      [
        'src/proxy/handler.ts:212:    const body = await readBody(request, limits);',
        'src/proxy/handler.ts:212:',
      ],
      ['README.md:3:spillway keeps oversized tool results…', 'README.md:3:'],
    ],
  },
  {
    name: 'name before a separator',
    pattern: /^[^\n]{2,160}?(?= — | – | \| |\t| - |: )/,
    examples: [
      ['lodash.merge — Recursively merges own and inherited enumerable properties…', 'lodash.merge'],
      ['report-2026-11.pdf\t2.1 MB\tmodified yesterday by a person…', 'report-2026-11.pdf'],
    ],
  },
];

/**
 * Where the identifying part of a listing line ends: the first rule that matches names it;
 * 0 when none does (the line is cut like any other).
 *
 * @example
 * identifyingEnd('src/a.ts:12: const x = 1;'); // 10 ('src/a.ts:12:')
 */
export function identifyingEnd(line: string): number {
  const head = line.slice(0, ID_SEARCH_CHARS);
  for (const rule of LISTING_RULES) {
    const match = rule.pattern.exec(head);
    if (match) return match[0].length;
  }
  return 0;
}

/**
 * A listing line cut to `limit` characters, but never inside its identifying part (up to 400
 * characters); a short mark counts what was left out (it is repeated on every item).
 *
 * @example
 * cutListingLine('3. [Title](https://example.com/a) — a snippet of four hundred characters…', 40);
 * // '3. [Title](https://example.com/a) — a s …(+35 chars)'
 */
export function cutListingLine(line: string, limit: number): string {
  const keep = codePointFloor(line, Math.max(limit, identifyingEnd(line)));
  if (keep >= line.length) return line;
  return `${line.slice(0, keep)}${listingCutMark(codePointLength(line.slice(keep)))}`;
}
