import { readFileSync } from 'node:fs';
import { collapseText } from '../collapse/index.js';
import { needlesKept, needlesOf } from '../replay/needles.js';
import { readTranscript } from '../replay/readers/index.js';
import { askedTerms } from '../signals/index.js';
import { textOf } from '../text/blocks.js';
import { callKeyOf } from '../text/call-keys.js';
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
      { budget },
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
  return corpusResults(minChars).map((r) => r.text);
}

/** What kind of tool printed a result, as the fidelity bench reports it. */
export const RESULT_KINDS = ['shell', 'read', 'search', 'web', 'mcp', 'other'] as const;
export type ResultKind = (typeof RESULT_KINDS)[number];

/**
 * The kind of a tool by its name: MCP tools (mcp__server__tool), shells, file reads, searches
 * (grep, glob, find), the web (fetch, search); other tools as other.
 *
 * @example
 * resultKind('mcp__github__list_issues'); // 'mcp'
 */
export function resultKind(tool: string): ResultKind {
  if (tool.startsWith('mcp__') || tool.includes('.mcp.')) return 'mcp';
  if (/^web|web_?(?:search|fetch)|^fetch|browse|url/i.test(tool)) return 'web';
  if (/bash|shell|exec|command|terminal|run_/i.test(tool)) return 'shell';
  if (/grep|glob|search|find|list_dir|ls$/i.test(tool)) return 'search';
  if (/read|view|open_file|^cat$/i.test(tool)) return 'read';
  return 'other';
}

/** A tool result of the corpus: its text, the tool's name and the call's arguments. */
export interface CorpusResult {
  text: string;
  tool: string;
  input?: unknown;
  /** The words said before the call (see ToolResult.said). */
  said?: string;
}

/**
 * Every tool result of the corpus over `minChars` characters, with its tool and arguments.
 *
 * @example
 * const results = corpusResults(4000);
 */
export function corpusResults(minChars: number): CorpusResult[] {
  const out: CorpusResult[] = [];
  for (const file of corpusFiles()) {
    for (const conversation of readTranscript(readFileSync(file, 'utf8'), file).conversations)
      for (const result of conversation.turns.flat()) {
        const text = textOf(result.content);
        if (text !== null && text.length > minChars)
          out.push({ text, tool: result.tool, input: result.input, said: result.said });
      }
  }
  return out;
}

// What a kept needle costs besides its own line: a marker for the run before it, about.
const ORACLE_MARKER_TOKENS = 12;

/**
 * The most needles of `text` any method could keep at `budget`: the cheapest needle lines, each
 * with a marker, until the budget is full (the oracle column of the fidelity bench).
 *
 * @example
 * oracleKept(log, 1000); // { needles: 14, kept: 14 }
 */
export function oracleKept(text: string, budget: number): { needles: number; kept: number } {
  const needles = needlesOf(text);
  return { needles: needles.length, kept: mostThatFit(needles, budget) };
}

/**
 * How many of `lines` a budget could hold at most: the cheapest first, each with a marker.
 *
 * @example
 * mostThatFit(['error: a', 'error: b'], 1000); // 2
 */
export function mostThatFit(lines: readonly string[], budget: number): number {
  const costs = lines.map((n) => o200k.count(`${n}\n`) + ORACLE_MARKER_TOKENS).sort((a, b) => a - b);
  let room = budget - ORACLE_MARKER_TOKENS;
  let kept = 0;
  for (const cost of costs) {
    if (cost > room) break;
    room -= cost;
    kept++;
  }
  return kept;
}

/** Needles kept per kind of tool at one budget: spillway's (with the terms asked about), head+tail's, Codex's 50/50, the oracle's. */
export interface KindFidelity {
  kind: ResultKind;
  outputs: number;
  needles: number;
  spillway: number;
  headTail: number;
  /** Codex's rule: half and half at 4 bytes a token (often over the budget by a real count). */
  codex: number;
  /** Outputs Codex's rule left over the budget by a real count. */
  codexOver: number;
  oracle: number;
}

/**
 * The fidelity bench's table by kind: for each kind of tool, of the results over `budget`, the
 * needles spillway keeps (given the call's arguments and the words said before it, as the proxy
 * is), plain head+tail keeps, Codex's 50/50 keeps, and the most any method could (oracleKept).
 *
 * @example
 * for (const row of await fidelityByKind(corpusResults(4000), 1000)) console.log(row.kind, row.spillway / row.needles);
 */
export async function fidelityByKind(
  results: readonly CorpusResult[],
  budget: number,
): Promise<KindFidelity[]> {
  const rows = new Map<ResultKind, KindFidelity>(
    RESULT_KINDS.map((kind) => [
      kind,
      { kind, outputs: 0, needles: 0, spillway: 0, headTail: 0, codex: 0, codexOver: 0, oracle: 0 },
    ]),
  );
  for (const { text, tool, input, said } of results) {
    if (o200k.countUpTo(text, budget) <= budget) continue;
    const row = rows.get(resultKind(tool)) as KindFidelity;
    const needles = needlesOf(text);
    const out = await collapseText(
      text,
      {
        budget,
        query: askedTerms(input, said),
        outline: callKeyOf({ tool, input })?.kind === 'read',
      },
      { tokenizer: o200k, id: () => stashId(text), stash: async () => {} },
    );
    const headTail = snip(text, { budget, unit: 'tokens', tokenizer: o200k });
    row.outputs++;
    row.needles += needles.length;
    row.spillway += needlesKept(needles, out.action === 'acted' ? out.text : text);
    row.headTail += needlesKept(needles, headTail);
    const codex = snip(text, { budget: budget * 4, unit: 'bytes' });
    row.codex += needlesKept(needles, codex);
    if (o200k.countUpTo(codex, budget) > budget) row.codexOver++;
    row.oracle += oracleKept(text, budget).kept;
  }
  return [...rows.values()].filter((r) => r.outputs > 0);
}
