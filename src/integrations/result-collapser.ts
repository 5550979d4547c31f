import { type Collapsed, collapse } from '../collapse/index.js';
import { SpillwayError } from '../errors.js';
import { MemoryStore } from '../store/backends/index.js';
import type { Store } from '../store/index.js';
import { budgetProblem, contentDigest, MIN_BUDGET } from '../text/index.js';
import { getTokenizer } from '../text/tokenizers/index.js';

// Collapses made, by the text's digest: an agent sends the whole conversation again each turn,
// and a result is collapsed once. Bounded: the oldest are forgotten (and made again, the same).
const MEMO_ENTRIES = 512;
const DEFAULT_TOKENS = 2000;

/** How an integration collapses the tool results of a conversation, turn after turn. */
export interface ResultCollapser {
  store: Store;
  /** The text collapsed to the budget, or as it is when it fits. */
  text(text: string): Promise<string>;
  /** What the engine's collapse made of the text. */
  collapsed(text: string): Promise<Collapsed>;
}

/**
 * One budget and one store for a conversation's tool results: each text is collapsed by the
 * engine's collapse once and the same way at every turn (so the provider's cached prefix holds),
 * its whole stashed for recall. A collapse that failed (the store refused the original) throws
 * and is tried again next time. Its options are checked here, when it is made: a budget below
 * the smallest one (MIN_BUDGET.tokens) or an unknown tokenizer throws SPILLWAY_BAD_CONFIG at
 * once, not at the first tool result.
 *
 * @example
 * const c = resultCollapser({ tokens: 2000 });
 * await c.text(hugeLog); // within 2,000 tokens, its error kept, the whole in c.store
 */
export function resultCollapser(
  o: { tokens?: number; store?: Store; tokenizer?: string } = {},
): ResultCollapser {
  const store = o.store ?? new MemoryStore();
  const tokens = o.tokens ?? DEFAULT_TOKENS;
  const problem = budgetProblem(tokens, 'tokens');
  if (problem)
    throw new SpillwayError(
      'SPILLWAY_BAD_CONFIG',
      `tokens: ${problem}; give tokens: ${MIN_BUDGET.tokens} or more (default ${DEFAULT_TOKENS})`,
    );
  if (o.tokenizer !== undefined) getTokenizer(o.tokenizer);
  const memo = new Map<string, Promise<Collapsed>>();
  const collapsed = (text: string): Promise<Collapsed> => {
    const key = contentDigest(text).toString('base64url');
    let out = memo.get(key);
    if (!out) {
      out = collapse(text, { tokens, store, ...(o.tokenizer ? { tokenizer: o.tokenizer } : {}) });
      out.catch(() => memo.delete(key));
      memo.set(key, out);
      if (memo.size > MEMO_ENTRIES) memo.delete(memo.keys().next().value as string);
    }
    return out;
  };
  return { store, collapsed, text: async (text) => (await collapsed(text)).text };
}
