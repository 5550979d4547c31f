import { isAscii, transcode } from 'node:buffer';

/**
 * UTF-8 length of a string in bytes (a lone surrogate counts 3, as it encodes to U+FFFD).
 *
 * @example
 * utf8Length('héllo'); // 6
 */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * Number of Unicode code points (a surrogate pair counts once, unlike `text.length`). A caller
 * that knows the text's UTF-8 bytes passes them: when they equal its length the text is ASCII
 * and nothing is scanned.
 *
 * @example
 * codePointLength('a😀'); // 2
 */
export function codePointLength(text: string, utf8Bytes?: number): number {
  if (utf8Bytes === text.length) return text.length;
  // A native regex scan counts the surrogate pairs (3x faster than a JS loop). It is not
  // preceded by a byte count: V8 answers it at once for a string it stores one byte a unit, and
  // for any other it takes as long as the scan.
  SURROGATE_PAIR.lastIndex = 0;
  let pairs = 0;
  // test(), not exec(): no match array per emoji.
  while (SURROGATE_PAIR.test(text)) pairs++;
  return text.length - pairs;
}

// A pair consumed whole, not a high half with a lookahead: the scan is twice as fast.
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/**
 * The UTF-8 bytes of a string (a lone surrogate as U+FFFD, as `Buffer.from` does). A string of
 * a few kilobytes or more goes through ICU's transcoder, about three times as fast as V8's
 * encoder, which also measures the string first. A shorter one, or one with a lone surrogate
 * (which ICU refuses), is encoded by V8 straight into a buffer of the right size.
 *
 * @example
 * utf8Bytes('é'); // <Buffer c3 a9>
 */
export function utf8Bytes(text: string): Buffer {
  const transcoded = text.length >= TRANSCODE_MIN_CHARS ? icuUtf8(text) : undefined;
  if (transcoded) return transcoded;
  const out = Buffer.allocUnsafe(Buffer.byteLength(text, 'utf8'));
  out.write(text, 'utf8');
  return out;
}

/** Strings this long or longer are encoded by ICU (below it V8's encoder is as fast). */
export const TRANSCODE_MIN_CHARS = 4 * 1024;

/**
 * The UTF-8 of a well-formed string through ICU, a quarter of a million code units at a time
 * (so the UTF-16 copy ICU reads stays small); undefined when the string holds a lone surrogate,
 * which ICU refuses. A slice never ends between the halves of a pair.
 *
 * @example
 * icuUtf8('é😀')?.length; // 6
 * icuUtf8('a\ud800'); // undefined
 */
export function icuUtf8(text: string): Buffer | undefined {
  const parts: Buffer[] = [];
  let total = 0;
  for (let from = 0; from < text.length; ) {
    let to = Math.min(text.length, from + TRANSCODE_SLICE);
    if (isInsidePair(text, to)) to--;
    let part: Buffer;
    try {
      part = transcode(Buffer.from(text.slice(from, to), 'utf16le'), 'utf16le', 'utf8');
    } catch {
      return undefined;
    }
    parts.push(part);
    total += part.length;
    from = to;
  }
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, total);
}

/** Code units ICU is given at a time (a slice of a pair never is). */
export const TRANSCODE_SLICE = 256 * 1024;

/**
 * UTF-8 bytes to a string, exactly as `bytes.toString('utf8')` decodes them, about twice as
 * fast for non-ASCII input of a few kilobytes or more: V8's decoder slows to about 4 ms a
 * megabyte once a body holds any non-ASCII character, where ICU's transcoder to UTF-16 and a
 * copy take about 2. ASCII, short input and bytes that are not valid UTF-8 (ICU refuses them)
 * go through `toString`.
 *
 * @example
 * decodeUtf8(Buffer.from('héllo')); // 'héllo'
 */
export function decodeUtf8(bytes: Buffer): string {
  if (bytes.length < TRANSCODE_MIN_BYTES || isAscii(bytes)) return bytes.toString('utf8');
  try {
    return transcode(bytes, 'utf8', 'utf16le').toString('utf16le');
  } catch {
    return bytes.toString('utf8');
  }
}

const TRANSCODE_MIN_BYTES = 4 * 1024;

/**
 * True when the code unit at `i` is the low half of a surrogate pair (so `i` is mid-character).
 *
 * @example
 * isInsidePair('a😀', 2); // true: index 2 is the low half of the emoji
 */
export function isInsidePair(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return false;
  const lo = text.charCodeAt(i);
  const hi = text.charCodeAt(i - 1);
  return lo >= 0xdc00 && lo <= 0xdfff && hi >= 0xd800 && hi <= 0xdbff;
}

/**
 * Moves a code-unit index back so it does not split a surrogate pair.
 *
 * @example
 * codePointFloor('a😀', 2); // 1
 */
export function codePointFloor(text: string, i: number): number {
  return isInsidePair(text, i) ? i - 1 : i;
}

/**
 * Moves a code-unit index forward so it does not split a surrogate pair.
 *
 * @example
 * codePointCeil('a😀', 2); // 3
 */
export function codePointCeil(text: string, i: number): number {
  return isInsidePair(text, i) ? i + 1 : i;
}

function utf8Width(text: string, i: number): { bytes: number; units: number } {
  const c = text.charCodeAt(i);
  if (c < 0x80) return { bytes: 1, units: 1 };
  if (c < 0x800) return { bytes: 2, units: 1 };
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return { bytes: 4, units: 2 };
  }
  return { bytes: 3, units: 1 };
}

function utf8WidthBefore(text: string, end: number): { bytes: number; units: number } {
  const c = text.charCodeAt(end - 1);
  if (c >= 0xdc00 && c <= 0xdfff && end >= 2) {
    const h = text.charCodeAt(end - 2);
    if (h >= 0xd800 && h <= 0xdbff) return { bytes: 4, units: 2 };
  }
  return utf8Width(text, end - 1);
}

/**
 * The end (code-unit index) of the longest prefix of `text` whose UTF-8 encoding fits in
 * `maxBytes`. Never splits a UTF-8 sequence or a surrogate pair. Work is O(maxBytes).
 *
 * @example
 * text.slice(0, utf8PrefixEnd('héllo', 2)); // 'h' (é would need bytes 2-3)
 */
export function utf8PrefixEnd(text: string, maxBytes: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const w = utf8Width(text, i);
    if (bytes + w.bytes > maxBytes) break;
    bytes += w.bytes;
    i += w.units;
  }
  return i;
}

/**
 * The start (code-unit index) of the longest suffix of `text` whose UTF-8 encoding fits in
 * `maxBytes`. Never splits a UTF-8 sequence or a surrogate pair. Work is O(maxBytes).
 *
 * @example
 * 'héllo'.slice(utf8SuffixStart('héllo', 3)); // 'llo'
 */
export function utf8SuffixStart(text: string, maxBytes: number): number {
  let bytes = 0;
  let i = text.length;
  while (i > 0) {
    const w = utf8WidthBefore(text, i);
    if (bytes + w.bytes > maxBytes) break;
    bytes += w.bytes;
    i -= w.units;
  }
  return i;
}

/**
 * The end (code-unit index) of the longest prefix with at most `maxChars` code points.
 *
 * @example
 * 'a😀b'.slice(0, codePointPrefixEnd('a😀b', 2)); // 'a😀'
 */
export function codePointPrefixEnd(text: string, maxChars: number): number {
  // As many units as code points, plus one for each surrogate pair that starts before the end.
  // Pairs are found by a native search over the stretch just added, never past it: a short
  // prefix of a megabyte text with no emoji is not searched to the end.
  let end = maxChars > 0 ? Math.ceil(maxChars) : 0;
  let from = 0;
  while (end < text.length) {
    // One unit past the end, so a pair whose high half is the last unit is seen whole.
    const stretch = text.slice(from, end + 1);
    SURROGATE_PAIR.lastIndex = 0;
    let pairs = 0;
    // A match ends past its low half: its high half is at lastIndex - 2.
    while (SURROGATE_PAIR.test(stretch) && SURROGATE_PAIR.lastIndex - 2 < end - from) pairs++;
    if (pairs === 0) break;
    from = end;
    end += pairs;
  }
  return Math.min(end, text.length);
}

/**
 * The start (code-unit index) of the longest suffix with at most `maxChars` code points.
 *
 * @example
 * 'a😀b'.slice(codePointSuffixStart('a😀b', 2)); // '😀b'
 */
export function codePointSuffixStart(text: string, maxChars: number): number {
  let i = text.length;
  let n = 0;
  while (i > 0 && n < maxChars) {
    i -= utf8WidthBefore(text, i).units;
    n++;
  }
  return i;
}
