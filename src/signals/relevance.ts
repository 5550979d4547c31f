/**
 * Relevance to the call: the lines of an output that name what the call asked for (a test or a
 * symbol in the command, the pattern of a search, a file's name), scored BM25-style over the
 * output's own lines, no model. A term most lines carry (the pattern of a grep whose every line
 * matches) says nothing and is left out.
 */

/** A line that names what the call asked for, and how strongly. */
export interface RelevantLine {
  line: number;
  start: number;
  end: number;
  score: number;
}

// Words a command or a path is made of that name nothing the call is about.
const NOISE = new Set(
  'bash sh zsh cd cat grep rg egrep sed awk head tail less more ls find xargs echo printf npm npx pnpm yarn node python python3 pip pytest go cargo make git run test tests exec sudo env the and for with from into src lib dist build out bin usr tmp home true false null none json yaml yml txt log md ts js tsx jsx mjs cjs py rs rb ex exs php java kt cs sh include exclude file files path line lines name names type cmd command args input description timeout'.split(
    ' ',
  ),
);
const MAX_TERMS = 12;
const MAX_STRING = 2000;
// A term on more than this share of the lines is not what sets a line apart.
const COMMON_SHARE = 0.2;
const MAX_RELEVANT = 8;
// How much of a text is scored: its first quarter and last three quarters of this much.
const RELEVANCE_SCAN_CHARS = 1024 * 1024;

/**
 * The terms a call's arguments ask about: identifiers, test and symbol names, the stems of file
 * names, lower-cased, at most a dozen, without a shell's and a path's common words.
 *
 * @example
 * queryTerms({ command: 'pytest tests/test_cart.py::test_total -x' }); // ['test_cart', 'test_total']
 */
export function queryTerms(input: unknown): string[] {
  const strings: string[] = [];
  const visit = (value: unknown, depth: number) => {
    if (typeof value === 'string') strings.push(value.slice(0, MAX_STRING));
    else if (depth < 3 && Array.isArray(value)) for (const v of value.slice(0, 20)) visit(v, depth + 1);
    else if (depth < 3 && value !== null && typeof value === 'object')
      for (const v of Object.values(value).slice(0, 20)) visit(v, depth + 1);
  };
  visit(input, 0);
  const terms = new Set<string>();
  for (const s of strings)
    for (const word of s.toLowerCase().match(/[a-z_][a-z0-9_]{2,}/g) ?? []) {
      if (NOISE.has(word) || /^\d/.test(word)) continue;
      terms.add(word);
      if (terms.size >= MAX_TERMS) return [...terms];
    }
  return [...terms];
}

// How many terms the words said before a call add to its arguments' own.
const MAX_SAID_TERMS = 6;

/**
 * The terms of what the user and the assistant said before a call that name something in
 * code: identifiers written as such (snake_case, camelCase, with digits), file names' stems, and
 * what is quoted in backticks; prose words are left out (they name nothing an output's line
 * could be told by, and "the failing test" would pull in every line that says "test").
 *
 * @example
 * saidTerms('Why does `charge` fail in test_payments.py? See PaymentService.'); // ['charge', 'test_payments', 'paymentservice']
 */
export function saidTerms(said: string | undefined): string[] {
  if (!said) return [];
  const text = said.slice(0, 2 * MAX_STRING);
  const found: string[] = [];
  for (const quoted of text.match(/`[^`\n]{1,200}`/g) ?? []) found.push(...queryTerms(quoted));
  for (const m of text.matchAll(/[A-Za-z_][\w$-]*/g)) {
    const word = m[0];
    const codeLike =
      /_|[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z]/.test(word) ||
      /^\.[a-z]{1,5}\b/.test(text.slice(m.index + word.length));
    if (codeLike) found.push(...queryTerms(word));
  }
  return [...new Set(found)].slice(0, MAX_SAID_TERMS);
}

/**
 * What a result is scored for: its call's arguments' terms, then those of the words said
 * before the call.
 *
 * @example
 * askedTerms({ command: 'pytest -x' }, 'why does test_charge fail?'); // ['test_charge']
 */
export function askedTerms(input: unknown, said?: string): string[] {
  return [...new Set([...queryTerms(input), ...saidTerms(said)])];
}

/**
 * The lines of `text` (of `lines` lines) that name the terms best: each term weighs by its
 * rarity among the lines (BM25's idf), terms most lines carry are left out; at most eight, in
 * order. Empty without terms.
 *
 * @example
 * relevantLines('ok\nFAILED test_total\nok', 3, ['test_total'])[0]?.line; // 1
 */
export function relevantLines(text: string, lines: number, terms: readonly string[]): RelevantLine[] {
  if (terms.length === 0 || lines < 3) return [];
  const finder = new RegExp(terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
  // Per line that names a term: where it is and which terms it names.
  const named = new Map<number, { start: number; end: number; terms: Set<string> }>();
  const df = new Map<string, number>();
  // `view` ends where the stretch does (its offsets are the text's): a stretch with no term in
  // it is not searched on to the text's end.
  const scan = (view: string, from: number, firstLine: number) => {
    let line = firstLine;
    let lineStart = from;
    finder.lastIndex = from;
    for (let m = finder.exec(view); m !== null; m = finder.exec(view)) {
      for (
        let nl = text.indexOf('\n', lineStart);
        nl >= 0 && nl < m.index;
        nl = text.indexOf('\n', lineStart)
      ) {
        lineStart = nl + 1;
        line++;
      }
      const term = m[0].toLowerCase();
      let entry = named.get(line);
      if (!entry) {
        const end = text.indexOf('\n', lineStart);
        entry = { start: lineStart, end: end < 0 ? text.length : end, terms: new Set() };
        named.set(line, entry);
      }
      if (!entry.terms.has(term)) {
        entry.terms.add(term);
        df.set(term, (df.get(term) ?? 0) + 1);
      }
    }
  };
  if (text.length <= RELEVANCE_SCAN_CHARS) scan(text, 0, 0);
  else {
    scan(text.slice(0, text.lastIndexOf('\n', RELEVANCE_SCAN_CHARS / 4) + 1), 0, 0);
    const tailFrom = text.indexOf('\n', text.length - (RELEVANCE_SCAN_CHARS * 3) / 4) + 1;
    let tailLines = 1;
    for (let at = text.indexOf('\n', tailFrom); at >= 0; at = text.indexOf('\n', at + 1)) tailLines++;
    scan(text, tailFrom, lines - tailLines);
  }
  const idf = (term: string) => {
    const n = df.get(term) ?? 0;
    return n > lines * COMMON_SHARE ? 0 : Math.log(1 + (lines - n + 0.5) / (n + 0.5));
  };
  const scored: RelevantLine[] = [];
  for (const [line, entry] of named) {
    let score = 0;
    for (const term of entry.terms) score += idf(term);
    if (score > 0) scored.push({ line, start: entry.start, end: entry.end, score });
  }
  scored.sort((a, b) => b.score - a.score || a.line - b.line);
  return scored.slice(0, MAX_RELEVANT).sort((a, b) => a.line - b.line);
}
