import { z } from 'zod';
import { isCompactableJson } from '../../collapse/index.js';
import { wholeNumber } from '../../config-schema.js';
import { lineKind } from '../../signals/index.js';
import {
  codePointCeil,
  codePointFloor,
  codePointLength,
  linecapMarker,
  textOf,
  withText,
} from '../../text/index.js';
import type { Stage } from '../types.js';
import { perItem, sizeAfter } from './per-item.js';

/** linecap's options. */
export const LinecapOptionsSchema = z.strictObject({
  /** Lines longer than this many characters are cut (default 2000). */
  maxLineChars: wholeNumber(1).optional(),
  /** Characters of a cut line kept at its start (default 1000) and end (default 500). */
  headChars: wholeNumber(0).optional(),
  tailChars: wholeNumber(0).optional(),
  /**
   * Leave a text that is one JSON document (up to 4 MiB) to collapse, which keeps its every key
   * and the odd items out of its arrays, where a cut keeps only its two ends. Set by the
   * engine config when a collapse stage follows.
   */
  leaveJson: z.boolean().optional(),
});
export type LinecapOptions = z.infer<typeof LinecapOptionsSchema>;

/**
 * An address a long line starts with, which a cut would keep anyway but which says the line is
 * a finding at a place (path/to/file.ext:12 or C:\\dir\\file.ext:12:5): anchored on a real file
 * name, so a line of JSON such as `{"items":[{"id":1,...` is no address.
 */
const FILE_LINE = /^\s*(?:[A-Za-z]:)?[\w@~.\-/\\]*[\w-]\.[A-Za-z0-9]{1,10}:\d+(?::\d+)?(?:\D|$)/;

/** A line that is a URL: protected up to 8 KB (longer than that it is data, not an address). */
const URL_LINE = /^\s*<?https?:\/\/\S+>?\s*$/;

/**
 * True for a line linecap must never cut: a line that matters by the signal table (an error,
 * a frame, a verdict, a diff header...), a finding at a file and line, or a URL.
 *
 * @example
 * isProtectedLine('src/app.ts:42:7 error TS2345'); // true
 * isProtectedLine('{"items":[{"id":1,"name":"x"}]}'); // false
 */
export function isProtectedLine(line: string): boolean {
  // Only the start of a line decides; a regex over a megabyte line would be slow for nothing.
  const start = line.length > 512 ? line.slice(0, 512) : line;
  if (lineKind(start) !== undefined || FILE_LINE.test(start)) return true;
  return line.length <= 8192 && URL_LINE.test(line);
}

/**
 * Where each line longer than `max` characters starts and ends (`[start, end)`, the end at its
 * `\n` or the text's end). It jumps `max` characters at a time to the last line end before
 * there, so a log of short lines is crossed in a few calls per `max` characters, not one per line.
 *
 * @example
 * longLines('ok\n' + 'x'.repeat(10) + '\nok', 5); // [[3, 13]]
 */
export function longLines(text: string, max: number): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  while (text.length - start > max) {
    const lineEnd = text.lastIndexOf('\n', start + max);
    if (lineEnd >= start) {
      start = lineEnd + 1;
      continue;
    }
    // No line end within max characters: the line from `start` is longer than that.
    let end = text.indexOf('\n', start + max + 1);
    if (end < 0) end = text.length;
    out.push([start, end]);
    start = end + 1;
  }
  return out;
}

/**
 * linecap: cuts single lines over `maxLineChars`, keeping their start and end around a
 * recallable marker, except lines that must stay whole (see {@link isProtectedLine}).
 *
 * @example
 * const stage = linecapStage({ maxLineChars: 4000 });
 */
export function linecapStage(options: LinecapOptions = {}): Stage {
  const maxLineChars = options.maxLineChars ?? 2000;
  const headChars = options.headChars ?? 1000;
  const tailChars = options.tailChars ?? 500;
  return {
    name: 'linecap',
    lossy: true,
    pure: false,
    run: perItem(async (item) => {
      const text = textOf(item.content);
      if (text === null) return { action: 'declined', reason: 'non_text_blocks' };
      const long = longLines(text, maxLineChars);
      if (long.length === 0) return { action: 'declined', reason: 'no_long_lines' };
      // Parsed only when there is a line to cut.
      if (options.leaveJson && isCompactableJson(text))
        return { action: 'declined', reason: 'json_left_to_collapse' };
      const cuts = long.filter(
        ([start, end]) => !isProtectedLine(text.slice(start, Math.min(end, start + 8193))),
      );
      if (cuts.length === 0) return { action: 'declined', reason: 'only_protected_lines' };
      // The stash is written while the cuts are made; the marker is sent only once it is durable.
      const stashed = item.stashOriginal();
      // Awaited below; a cut that throws first must not leave its failure unhandled.
      stashed.catch(() => {});
      const id = item.originalId();
      // A string's size is known (from hashing it, or from the stage before it): for an ASCII
      // text every count is its length, and otherwise the lesser of what is cut and what stays
      // is measured, never the megabytes of both.
      const textBytes = typeof item.content === 'string' ? item.bytes() : undefined;
      const ascii = textBytes === text.length;
      const out: string[] = [];
      const stays: string[] = [];
      const middles: string[] = [];
      let at = 0;
      let markerBytes = 0;
      for (const [start, end] of cuts) {
        const headEnd = codePointFloor(text, start + headChars);
        const tailStart = codePointCeil(text, end - tailChars);
        const middle = text.slice(headEnd, tailStart);
        const marker = linecapMarker(codePointLength(middle, ascii ? middle.length : undefined), id);
        markerBytes += Buffer.byteLength(marker);
        middles.push(middle);
        stays.push(text.slice(at, headEnd));
        out.push(stays.at(-1) as string, marker);
        at = tailStart;
      }
      stays.push(text.slice(at));
      out.push(stays.at(-1) as string);
      await stashed;
      return {
        action: 'acted',
        content: withText(item.content, out.join('')),
        stashId: id,
        ...(textBytes === undefined
          ? {}
          : sizeAfter(item, markerBytes - cutBytes(textBytes, ascii, middles, stays))),
      };
    }),
  };
}

/** UTF-8 bytes of the middles cut out of a text of `textBytes` bytes, measuring the lesser side. */
function cutBytes(textBytes: number, ascii: boolean, middles: string[], stays: string[]): number {
  const length = (parts: string[]) => parts.reduce((n, part) => n + part.length, 0);
  const bytes = (parts: string[]) => parts.reduce((n, part) => n + Buffer.byteLength(part), 0);
  if (ascii) return length(middles);
  return length(middles) <= length(stays) ? bytes(middles) : textBytes - bytes(stays);
}
