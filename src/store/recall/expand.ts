import { SpillwayError } from '../../errors.js';
import { codePointFloor, recallIdOf, storedText } from '../../text/index.js';
import { getTokenizer, type Tokenizer } from '../../text/tokenizers/index.js';
import { parseRecallId } from '../ids.js';
import type { Store } from '../store.js';
import { eachLine } from './json-field.js';
import { LINE_WINDOW_CHARS, locateIn, shown, shownAround } from './long-lines.js';
import { totals } from './original-lines.js';
import { notFoundMessage, savedCopy } from './recall.js';
import { safePattern } from './safe-pattern.js';
import { readOriginal } from './verified-read.js';

/** The default size of what one recall returns, in tokens. */
export const DEFAULT_EXPAND_TOKENS = 4000;
/** The most one recall returns, whatever is asked. */
export const MAX_EXPAND_TOKENS = 32_000;
/** Lines around each grep match (default). */
export const DEFAULT_GREP_CONTEXT = 2;
/** The most lines of context around a match, wherever a grep comes from (MCP, HTTP, the CLI). */
export const MAX_GREP_CONTEXT = 50;
/** A grep that runs longer stops and says where it got to. */
export const GREP_TIME_LIMIT_MS = 20_000;
/** What a model, a person or a script asks of a stored original. */
export interface ExpandRequest {
  id: string;
  /** A pattern: the matching lines with their numbers and `context` lines around each. */
  grep?: string | undefined;
  context?: number | undefined;
  ignoreCase?: boolean | undefined;
  /** A range of lines, `A-B` (1-based, inclusive) or `A-` (to the end). */
  lines?: string | undefined;
  /**
   * With `lines` or `grep`: a JSON pointer (`/stdout`) to a string in a JSON original, whose own
   * lines are meant (a collapsed `{"stdout": "<log>"}` numbers the lines of its string).
   */
  field?: string | undefined;
  /** The page size: the most tokens to return (default 4,000; a model's `max_tokens`). */
  pageSize?: number | undefined;
  /** @deprecated The page size's former name; `pageSize` wins when both are given. */
  maxTokens?: number | undefined;
  /** For pages: the byte offset to start at (from the previous page's footer). */
  offset?: number | undefined;
  /** Stops the work when aborted (an HTTP client that went away). */
  signal?: AbortSignal | undefined;
}

function bad(message: string): SpillwayError {
  return new SpillwayError('SPILLWAY_BAD_INPUT', message);
}

function wholeAtLeast(name: string, value: number | undefined, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min)
    throw bad(`${name} must be a whole number >= ${min}, got ${value}`);
  return value;
}

/**
 * A line range as `[first, last]` (1-based, inclusive; last may be Infinity).
 *
 * @example
 * parseLineRange('120-180'); // [120, 180]
 * parseLineRange('500-'); // [500, Infinity]
 */
export function parseLineRange(range: string): [number, number] {
  const m = /^\s*(\d+)\s*(?:(-)\s*(\d*))?\s*$/.exec(range);
  const first = Number(m?.[1]);
  const last = m?.[2] ? (m[3] ? Number(m[3]) : Number.POSITIVE_INFINITY) : first;
  if (!m || first < 1 || last < first)
    throw bad(
      `lines must be a range like "120-180", "500-" or "42" (from line 1), got ${JSON.stringify(range)}`,
    );
  return [first, last];
}

/** `; the saved copy is the first N bytes only` when the entry reached the store's limit. */
function cutNote(store: Store, total: number): string {
  const what = savedCopy(total, store.limits.maxFileBytes);
  return what === 'output' ? '' : `; ${what}`;
}

/** Output lines under a token budget: true while they fit. */
function budgeted(tokenizer: Tokenizer, pageSize: number) {
  const out: string[] = [];
  let tokens = 0;
  let full = false;
  return {
    out,
    get full() {
      return full;
    },
    push(line: string): boolean {
      if (full) return false;
      const t = tokenizer.count(`${line}\n`);
      if (tokens + t > pageSize) {
        full = true;
        return false;
      }
      tokens += t;
      out.push(line);
      return true;
    },
  };
}

async function statOrThrow(store: Store, id: string) {
  const key = parseRecallId(id);
  const info = await store.stat(key);
  if (!info) throw new SpillwayError('SPILLWAY_NOT_FOUND', notFoundMessage(id));
  return { key, total: info.bytes };
}

/** grep -n over a stored original, streamed, with context and a token budget. */
async function grepOriginal(
  store: Store,
  req: ExpandRequest,
  tokenizer: Tokenizer,
  pageSize: number,
): Promise<string> {
  const pattern = safePattern(req.grep as string, { ignoreCase: req.ignoreCase });
  const context = wholeAtLeast('context', req.context, 0, DEFAULT_GREP_CONTEXT);
  if (context > MAX_GREP_CONTEXT)
    throw bad(
      `context must be at most ${MAX_GREP_CONTEXT} lines, got ${context}; ask for lines "A-B" for more`,
    );
  const { key, total } = await statOrThrow(store, req.id);
  const page = budgeted(tokenizer, pageSize);
  const before: { number: number; text: string; offset: number | undefined }[] = [];
  let after = 0;
  let lastShown = 0;
  let matches = 0;
  let shownMatches = 0;
  let lines = 0;
  let stoppedAt: number | undefined;
  const started = Date.now();
  const show = (number: number, text: string, offset: number | undefined, mark: ':' | '-', at = -1) => {
    if (lastShown && number > lastShown + 1) page.push('--');
    const body = mark === ':' ? shownAround(text, at, offset) : shown(text, offset);
    if (page.push(`${number}${mark}${body}`)) lastShown = number;
  };
  await eachLine(store, key, total, req.field, async ({ number, text, offset }) => {
    lines = number;
    if (req.signal?.aborted) return false;
    if (Date.now() - started > GREP_TIME_LIMIT_MS) {
      stoppedAt = number;
      return false;
    }
    const at =
      text.length > LINE_WINDOW_CHARS
        ? await locateIn(pattern, text)
        : pattern.test(text)
          ? pattern.locate(text)
          : -1;
    if (at >= 0) {
      matches++;
      if (!page.full) {
        for (const b of before) if (b.number > lastShown) show(b.number, b.text, b.offset, '-');
        show(number, text, offset, ':', at);
        if (!page.full) shownMatches++;
        after = context;
      }
      before.length = 0;
      return undefined;
    }
    if (after > 0 && !page.full) {
      show(number, text, offset, '-');
      after--;
    } else if (context > 0) {
      before.push({ number, text, offset });
      if (before.length > context) before.shift();
    }
    return undefined;
  });
  if (req.signal?.aborted) throw new SpillwayError('SPILLWAY_IO', 'the recall was abandoned');
  if (stoppedAt !== undefined) {
    const partial = `[grep "${req.grep}": stopped after ${GREP_TIME_LIMIT_MS / 1000} s at line ${stoppedAt}; ${matches} matching lines before it; narrow the pattern, or ask for lines "${stoppedAt}-" to go on]`;
    return `${page.out.join('\n')}${page.out.length ? '\n' : ''}${partial}`;
  }
  const what = `grep "${req.grep}"${req.ignoreCase ? ' (ignoring case)' : ''}`;
  const footer =
    matches === 0
      ? `[${what}: no matching line in ${lines} lines (${total} bytes${cutNote(store, total)}); try another pattern, or ask for lines "A-B"]`
      : page.full && shownMatches < matches
        ? `[${what}: ${matches} matching lines of ${lines}; the first ${shownMatches} shown (cut at ${pageSize} tokens); narrow the pattern, raise max_tokens, or ask for lines "A-B"]`
        : `[${what}: ${matches} matching lines of ${lines}${cutNote(store, total)}]`;
  return `${page.out.join('\n')}${page.out.length ? '\n' : ''}${footer}`;
}

/** A range of lines, numbered, under a token budget. */
async function linesOf(
  store: Store,
  req: ExpandRequest,
  tokenizer: Tokenizer,
  pageSize: number,
): Promise<string> {
  const [first, last] = parseLineRange(req.lines as string);
  const { key, total } = await statOrThrow(store, req.id);
  const page = budgeted(tokenizer, pageSize);
  let lines = 0;
  let lastShown = 0;
  await eachLine(store, key, total, req.field, ({ number, text, offset }) => {
    lines = number;
    if (number >= first && number <= last && !page.full && page.push(`${number}:${shown(text, offset)}`))
      lastShown = number;
    // Past the range the lines are only counted (for the footer's total).
    return undefined;
  });
  if (first > lines) throw bad(`lines ${req.lines} start past the end: the original has ${lines} lines`);
  const end = Math.min(last, lines);
  const footer =
    lastShown < end
      ? `[lines ${first}-${lastShown} of ${lines} (cut at ${pageSize} tokens); ask for lines "${lastShown + 1}-${end}" for more]`
      : `[lines ${first}-${end} of ${lines}${cutNote(store, total)}]`;
  return `${page.out.join('\n')}\n${footer}`;
}

/** A page of about `pageSize` tokens from a byte offset, ending on a line where it can. */
async function pageOf(
  store: Store,
  req: ExpandRequest,
  tokenizer: Tokenizer,
  pageSize: number,
): Promise<string> {
  const { key, total } = await statOrThrow(store, req.id);
  const offset = wholeAtLeast('offset', req.offset, 0, 0);
  if (offset > total)
    throw bad(`offset ${offset} is past the end of "${req.id}" (${total} bytes); use 0 to ${total}`);
  // A token is at least one byte and rarely more than eight: this many bytes hold the page
  // (one more shows whether the read ends inside a character).
  const want = Math.min(total - offset, Math.max(4096, pageSize * 8));
  const raw =
    (await readOriginal(store, key, { start: offset, end: Math.min(total, offset + want + 1) })) ??
    Buffer.alloc(0);
  let cut = Math.min(raw.length, want);
  for (let i = 0; i < 3 && cut > 0 && cut < raw.length && ((raw[cut] as number) & 0xc0) === 0x80; i++) cut--;
  const text = storedText(raw, 0, cut);
  let end: number;
  if (text.includes('\uFFFD')) {
    // Not valid UTF-8 (a binary spill): pages by bytes, at most one token a byte.
    end = offset + Math.min(cut, pageSize);
  } else {
    const { chars } = fitPage(text, tokenizer, pageSize);
    end = offset + Buffer.byteLength(text.slice(0, chars), 'utf8');
  }
  const body = storedText(raw, 0, end - offset);
  const counts = await totals(store, key, { total, start: offset, end }, tokenizer);
  const where = `bytes ${offset}-${end} of ${total}; lines ${counts.firstLine}-${counts.lastLine} of ${counts.lines}; ${counts.tokens} tokens in all`;
  const footer =
    end < total
      ? `[${where}; call spillway_expand with offset ${end} for the next page, or ask for lines "A-B" or grep a pattern]`
      : `[${where}; end of ${savedCopy(total, store.limits.maxFileBytes)}]`;
  // Always one newline before the footer: stripping "\n" + footer gives the bytes exactly.
  return `${body}\n${footer}`;
}

/** The longest prefix of `text` within `pageSize`, ending after a newline when one fits. */
function fitPage(text: string, tokenizer: Tokenizer, pageSize: number): { chars: number } {
  if (tokenizer.countUpTo(text, pageSize) <= pageSize) return { chars: text.length };
  let good = 0;
  let badAt = text.length;
  while (badAt - good > 1) {
    const mid = codePointFloor(text, (good + badAt) >>> 1);
    if (mid <= good) break;
    if (tokenizer.countUpTo(text.slice(0, mid), pageSize) <= pageSize) good = mid;
    else badAt = mid;
  }
  const newline = text.lastIndexOf('\n', good - 1);
  return { chars: newline > 0 ? newline + 1 : good };
}

/**
 * Answers a recall: with `grep`, the matching lines and their context; with `lines`, that range;
 * else a page of about `pageSize` tokens from `offset`. Every answer is numbered by line,
 * bounded in tokens, and ends with a footer that says where it is and how to ask for more.
 * Unknown ids are final (`SPILLWAY_NOT_FOUND`, "do not retry").
 *
 * @example
 * await expand(store, { id: 'Ab3', grep: 'ERROR|FAIL' });
 * await expand(store, { id: 'Ab3', lines: '1480-1520' });
 * await expand(store, { id: 'Ab3' }); // the first page, with the totals in its footer
 */
export async function expand(
  store: Store,
  given: ExpandRequest,
  tokenizer = getTokenizer('o200k'),
): Promise<string> {
  // A model may pass the whole marker tag, escaped as its client showed it.
  const req = { ...given, id: recallIdOf(given.id) };
  const pageSize = Math.min(
    MAX_EXPAND_TOKENS,
    wholeAtLeast('max_tokens', req.pageSize ?? req.maxTokens, 100, DEFAULT_EXPAND_TOKENS),
  );
  if (req.grep !== undefined && req.lines !== undefined) throw bad('give grep or lines, not both');
  if (req.field !== undefined && req.grep === undefined && req.lines === undefined)
    throw bad('give field with lines or grep: the lines of that string');
  if (req.grep !== undefined) return grepOriginal(store, req, tokenizer, pageSize);
  if (req.lines !== undefined) return linesOf(store, req, tokenizer, pageSize);
  return pageOf(store, req, tokenizer, pageSize);
}
