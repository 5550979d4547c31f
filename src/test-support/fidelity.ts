import { readFileSync } from 'node:fs';
import { collapseText } from '../pipeline/stages/collapse/index.js';
import { needlesKept, needlesOf } from '../replay/needles.js';
import { readTranscript } from '../replay/readers/index.js';
import { textOf } from '../text/blocks.js';
import { stashId } from '../text/content-hash.js';
import { snip } from '../text/snip.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { corpusFiles } from './corpus.js';

const o200k = getTokenizer('o200k');

/** Ways of fitting a long output into a token budget, compared by what survives. */
export const METHODS: Record<string, (text: string, budget: number) => Promise<string>> = {
  spillway: async (text, budget) => {
    const out = await collapseText(
      text,
      { resolvedMaxTokens: budget },
      { tokenizer: o200k, id: () => stashId(text), stash: async () => {} },
    );
    return out.action === 'acted' ? out.text : text;
  },
  // The seed's rule: head and tail by tokens around a marker.
  'head+tail': async (text, budget) => snip(text, { budget, unit: 'tokens', tokenizer: o200k }),
  // Codex's rule: half and half at 4 bytes a token.
  '50/50 at 4 B/token': async (text, budget) => snip(text, { budget: budget * 4, unit: 'bytes' }),
};

/** What a method did to a set of outputs at one budget. */
export interface Fidelity {
  outputs: number;
  needles: number;
  kept: number;
  /** Tokens used over the budget, summed (for the mean fill). */
  fill: number;
  /** Outputs whose result is over the budget (by an independent o200k count). */
  over: number;
}

/**
 * Runs every method over every output longer than the budget and measures needle retention,
 * budget fill and budget violations.
 *
 * @example
 * const byMethod = await fidelity(outputs, 2000);
 * byMethod.spillway.kept / byMethod.spillway.needles; // the share of needles still visible
 */
export async function fidelity(texts: readonly string[], budget: number): Promise<Record<string, Fidelity>> {
  const result: Record<string, Fidelity> = {};
  for (const name of Object.keys(METHODS))
    result[name] = { outputs: 0, needles: 0, kept: 0, fill: 0, over: 0 };
  for (const text of texts) {
    if (o200k.countUpTo(text, budget) <= budget) continue;
    const needles = needlesOf(text);
    for (const [name, method] of Object.entries(METHODS)) {
      const after = await method(text, budget);
      const tokens = o200k.count(after);
      const r = result[name] as Fidelity;
      r.outputs++;
      r.needles += needles.length;
      r.kept += needlesKept(needles, after);
      r.fill += tokens / budget;
      if (tokens > budget) r.over++;
    }
  }
  return result;
}

/**
 * One line of a fidelity table.
 *
 * @example
 * formatFidelity('spillway', byMethod.spillway); // 'spillway  needles 97.2% (105/108)  fill 98.1%  over 0'
 */
export function formatFidelity(name: string, f: Fidelity): string {
  const pct = (a: number, b: number) => `${b === 0 ? '-' : ((100 * a) / b).toFixed(1)}%`;
  return `${name.padEnd(20)} needles ${pct(f.kept, f.needles).padStart(6)} (${f.kept}/${f.needles})  fill ${pct(f.fill, f.outputs).padStart(6)}  over budget ${f.over}/${f.outputs}`;
}

/**
 * The text of every tool result of the corpus over `minChars` characters, in a stable order.
 *
 * @example
 * const texts = corpusResultTexts(4000);
 */
export function corpusResultTexts(minChars: number): string[] {
  const texts: string[] = [];
  for (const file of corpusFiles()) {
    for (const conversation of readTranscript(readFileSync(file, 'utf8'), file).conversations)
      for (const result of conversation.turns.flat()) {
        const text = textOf(result.content);
        if (text !== null && text.length > minChars) texts.push(text);
      }
  }
  return texts;
}
