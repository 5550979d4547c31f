import { decodeUtf8, icuUtf8, TRANSCODE_MIN_CHARS, utf8Bytes } from './measure.js';

const REPLACEMENT = Buffer.from('\uFFFD', 'utf8');

/**
 * The bytes an original is stored as: UTF-8, except that a lone surrogate (a string JSON can
 * carry as `\ud800` but UTF-8 cannot) is written as its generalised UTF-8 form (`ED A0 80`, as
 * WTF-8 does) instead of U+FFFD, so a recall gives back the exact string.
 *
 * @example
 * storedBytes('a\ud800b'); // <Buffer 61 ed a0 80 62>
 */
export function storedBytes(text: string): Buffer {
  if (text.length >= TRANSCODE_MIN_CHARS) {
    // ICU encodes only well-formed text: what it gives needs no search for lone surrogates.
    return icuUtf8(text) ?? withLoneSurrogates(text);
  }
  const bytes = utf8Bytes(text);
  // A lone surrogate is encoded as U+FFFD: only bytes holding one need the text checked.
  if (bytes.indexOf(REPLACEMENT) < 0 || text.isWellFormed()) return bytes;
  return withLoneSurrogates(text);
}

function withLoneSurrogates(text: string): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++; // a pair: ordinary UTF-8
      continue;
    }
    parts.push(
      utf8Bytes(text.slice(from, i)),
      Buffer.from([0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]),
    );
    from = i + 1;
  }
  parts.push(utf8Bytes(text.slice(from)));
  return Buffer.concat(parts);
}

const isSurrogateAt = (buf: Buffer, i: number) =>
  buf[i] === 0xed && (buf[i + 1] as number) >= 0xa0 && (buf[i + 1] as number) <= 0xbf;

/**
 * Stored bytes back to text: UTF-8, with a lone surrogate written by {@link storedBytes} given
 * back as itself. Bytes that are not UTF-8 otherwise decode as `toString('utf8')` does.
 *
 * @example
 * storedText(storedBytes('a\ud800b')) === 'a\ud800b'; // true
 */
export function storedText(buf: Buffer, start = 0, end = buf.length): string {
  let at = buf.indexOf(0xed, start);
  while (at >= 0 && at < end && !isSurrogateAt(buf, at)) at = buf.indexOf(0xed, at + 1);
  if (at < 0 || at >= end) return decodeUtf8(buf.subarray(start, end));
  let out = '';
  let from = start;
  for (let i = at; i + 2 < end; i++) {
    if (!isSurrogateAt(buf, i)) continue;
    const unit =
      (((buf[i] as number) & 0x0f) << 12) |
      (((buf[i + 1] as number) & 0x3f) << 6) |
      ((buf[i + 2] as number) & 0x3f);
    out += buf.toString('utf8', from, i) + String.fromCharCode(unit);
    from = i + 3;
    i += 2;
  }
  return out + buf.toString('utf8', from, end);
}
