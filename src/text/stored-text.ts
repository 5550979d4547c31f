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
  // Node writes a lone surrogate as U+FFFD: three bytes, like its generalised form. So the text
  // is encoded once and each lone surrogate's three bytes are patched in place, with no buffer
  // per surrogate (a result of a million of them took seconds, mostly collecting garbage).
  const out = Buffer.from(text, 'utf8');
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) at += 1;
    else if (unit < 0x800) at += 2;
    else if (unit < 0xd800 || unit > 0xdfff) at += 3;
    else if (unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      i++; // a pair: ordinary UTF-8
      at += 4;
    } else {
      out[at] = 0xe0 | (unit >> 12);
      out[at + 1] = 0x80 | ((unit >> 6) & 0x3f);
      out[at + 2] = 0x80 | (unit & 0x3f);
      at += 3;
    }
  }
  return out;
}

const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

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
