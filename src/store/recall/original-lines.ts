import { storedText } from '../../text/index.js';
import type { Tokenizer } from '../../text/tokenizers/index.js';
import type { StoreKey } from '../ids.js';
import type { Store } from '../store.js';
import { countLines, STREAM_CHUNK_BYTES } from './line-stream.js';
import { readOriginal } from './verified-read.js';

/** Per original: its number of lines, and the lines before each chunk (for later pages). */
interface LineIndexEntry {
  lines: number;
  /** Its size in tokens: exact up to a megabyte, estimated (bytes / 4, with "~") past that. */
  tokens: string;
  /** Newlines before byte `i * STREAM_CHUNK_BYTES`. */
  before: number[];
}
// Recently paged originals (a model pages one at a time): one streamed pass each, not one a page.
const lineIndexes = new Map<string, LineIndexEntry>();
const MAX_LINE_INDEXES = 32;
// Originals up to this size have their tokens counted exactly for the footer.
const EXACT_TOKENS_BYTES = 1024 * 1024;

async function lineIndexOf(
  store: Store,
  key: StoreKey,
  total: number,
  tokenizer: Tokenizer,
): Promise<LineIndexEntry> {
  const name = `${store.kind}:${key.dir}/${key.name}:${total}`;
  const known = lineIndexes.get(name);
  if (known) return known;
  let tokens = `~${Math.ceil(total / 4)}`;
  if (total <= EXACT_TOKENS_BYTES) {
    const body = await readOriginal(store, key);
    if (body) tokens = String(tokenizer.count(storedText(body)));
  }
  const entry = { ...(await countLines(store, key, total)), tokens };
  lineIndexes.set(name, entry);
  if (lineIndexes.size > MAX_LINE_INDEXES) lineIndexes.delete(lineIndexes.keys().next().value as string);
  return entry;
}

/** The number (from 1) of the line that holds byte `at`. */
async function lineAt(store: Store, key: StoreKey, entry: LineIndexEntry, at: number): Promise<number> {
  const chunk = Math.floor(at / STREAM_CHUNK_BYTES);
  const from = chunk * STREAM_CHUNK_BYTES;
  const bytes =
    at > from
      ? ((await readOriginal(store, key, { start: from, end: at })) ?? Buffer.alloc(0))
      : Buffer.alloc(0);
  let newlines = entry.before[chunk] ?? 0;
  for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) newlines++;
  return newlines + 1;
}

/**
 * An original's total lines and tokens, and the lines a byte range of it covers; the counts
 * are kept for the originals paged most recently, so each page reads only its own chunk.
 *
 * @example
 * const { lines, firstLine, lastLine } = await totals(store, key, { total, start: 0, end: 16384 }, tokenizer);
 */
export async function totals(
  store: Store,
  key: StoreKey,
  range: { total: number; start: number; end: number },
  tokenizer: Tokenizer,
) {
  const { total, start, end } = range;
  const entry = await lineIndexOf(store, key, total, tokenizer);
  const firstLine = Math.min(await lineAt(store, key, entry, start), Math.max(1, entry.lines));
  const lastLine = Math.min(
    await lineAt(store, key, entry, Math.max(start, end - 1)),
    Math.max(1, entry.lines),
  );
  return { lines: entry.lines, tokens: entry.tokens, firstLine, lastLine };
}
