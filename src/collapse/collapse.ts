import { SpillwayError } from '../errors.js';
import type { Store } from '../store/index.js';
import type { Tokenizer } from '../text/tokenizers/index.js';
import { collapseOutput } from './output.js';

/** What `collapse` takes: the budget and where the original goes. */
export interface CollapseCall {
  /** The most tokens the result may take (by `tokenizer`'s count). */
  tokens: number;
  /** Where the whole original is stashed before a shortened text is returned. */
  store: Store;
  /** The tokenizer that counts the budget, or its name (default o200k). */
  tokenizer?: Tokenizer | string;
  /** Words the call asked about (a test name, a search pattern): lines naming them are kept too. */
  query?: readonly string[];
  /** The text is a file read whole: its outline is kept too. */
  read?: boolean;
}

/** What `collapse` did: the text to show, and the recall id of the whole when it was cut. */
export type Collapsed =
  | { collapsed: false; text: string }
  | { collapsed: true; text: string; id: string; window: string };

/**
 * The collapse of one text (the one door, collapse/output.ts): within `tokens` it comes back as it is; over them
 * the whole is stashed in `store` and the text keeps its ends and the lines that matter
 * (errors, failures, exceptions, summaries; JSON by its structure, a diff by its hunks), with
 * markers naming the recall id. Never over the budget; throws SPILLWAY_IO when the original
 * cannot be stashed (nothing is cut that could not be recalled).
 *
 * @example
 * import { collapse, expand, MemoryStore } from 'spillway';
 * const store = new MemoryStore();
 * const out = await collapse(buildLog, { tokens: 2000, store });
 * if (out.collapsed) await expand(store, { id: out.id, grep: 'error' }); // the error lines, numbered
 */
export async function collapse(text: string, call: CollapseCall): Promise<Collapsed> {
  if (!Number.isFinite(call.tokens) || call.tokens < 1)
    throw new SpillwayError('SPILLWAY_BAD_INPUT', `collapse needs tokens of 1 or more, not ${call.tokens}`);
  const out = await collapseOutput(text, {
    store: call.store,
    budget: Math.floor(call.tokens),
    tokenizer: call.tokenizer ?? 'o200k',
    ...(call.query ? { query: call.query } : {}),
    ...(call.read !== undefined ? { read: call.read } : {}),
  });
  if (out.error) throw out.error;
  if (out.stashError !== undefined)
    throw new SpillwayError('SPILLWAY_IO', `cannot stash the original, so it is not cut: ${out.stashError}`);
  if (out.step !== 'acted' || out.id === undefined) return { collapsed: false, text };
  return { collapsed: true, text: out.text, id: out.id, window: String(out.window) };
}
