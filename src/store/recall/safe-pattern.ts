import { setFlagsFromString } from 'node:v8';
import { SpillwayError } from '../../errors.js';
import { topAlternatives } from '../../signals/index.js';

/** The longest pattern accepted from a model or a person. */
export const MAX_PATTERN_CHARS = 1000;

let linearEngine: boolean | undefined;
// The flag of V8's linear engine, out of reach of tools that check RegExp flags at build time.
const LINEAR = ['l'].join('');

/** V8's linear-time regex engine (flag `l`): no input makes a pattern backtrack. */
function hasLinearEngine(): boolean {
  if (linearEngine === undefined) {
    try {
      setFlagsFromString('--enable-experimental-regexp-engine');
      new RegExp('a', LINEAR);
      linearEngine = true;
    } catch {
      linearEngine = false;
    }
  }
  return linearEngine;
}

/** Lower-cases a pattern's letters, but not what follows a backslash (`\D`, `\S`, `\W` stay). */
function lowerPattern(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '\\' && i + 1 < pattern.length) {
      out += c + pattern[++i];
      continue;
    }
    out += c.toLowerCase();
  }
  return out;
}

const SPECIAL = new Set(['.', '^', '$', '|', '(', ')', '[', ']', '{', '}', '*', '+', '?', '\\']);

const QUANTIFIER = /^\{\d+(,\d*)?\}/;

/** How many characters after the escape letter at `i` belong to it (`\x41`: 2). */
function escapePayload(pattern: string, i: number): number {
  const rest = pattern.slice(i + 1);
  const length = (re: RegExp) => re.exec(rest)?.[0].length ?? 0;
  switch (pattern[i]) {
    case 'x':
      return length(/^[0-9A-Fa-f]{2}/);
    case 'u':
      return length(/^(\{[0-9A-Fa-f]+\}|[0-9A-Fa-f]{4})/);
    case 'c':
      return length(/^[A-Za-z]/);
    case 'p':
    case 'P':
      return length(/^\{[^}]*\}/);
    case 'k':
      return length(/^<[^>]*>/);
    default:
      return /[0-9]/.test(pattern[i] ?? '') ? length(/^[0-9]*/) : 0;
  }
}

/** The longest run of plain characters every match of `alternative` contains ('' when none). */
function literalOf(alternative: string): string {
  let best = '';
  let run = '';
  let depth = 0;
  let inClass = false;
  const end = () => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (let i = 0; i < alternative.length; i++) {
    const c = alternative[i] as string;
    const next = alternative[i + 1];
    let literal: string | undefined;
    if (c === '\\') {
      const e = alternative[++i] ?? '';
      // An escaped punctuation mark is itself; \d, \w, \b, \n ... are not plain text, and the
      // payload of \x41, \u0041, \u{41}, \cJ, \p{L}, \k<name> or \12 is not text either.
      if (/[^A-Za-z0-9]/.test(e)) literal = e;
      else i += escapePayload(alternative, i);
    } else if (!inClass && c === '{' && QUANTIFIER.test(alternative.slice(i))) {
      i += (QUANTIFIER.exec(alternative.slice(i))?.[0].length ?? 1) - 1; // {n}, {n,}, {n,m}
    } else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && !SPECIAL.has(c)) literal = c;
    if (literal === undefined || depth > 0 || inClass) {
      end();
      continue;
    }
    const quantifier = alternative[i + 1];
    if (quantifier === '?' || quantifier === '*' || quantifier === '{') {
      end();
      continue;
    }
    run += literal;
    if (quantifier === '+' || next === undefined) end();
  }
  end();
  return best;
}

/**
 * Plain text every match contains, one per alternative; undefined when some has none.
 *
 * @example
 * requiredTexts('ERROR|FAIL'); // ['ERROR', 'FAIL']
 * requiredTexts('^(a+)+$'); // undefined
 */
export function requiredTexts(pattern: string): string[] | undefined {
  const texts = topAlternatives(pattern).map(literalOf);
  return texts.every((t) => t.length >= 2) ? texts : undefined;
}

/** A compiled search pattern, and whether a line must be lower-cased before it is tested. */
export interface SafePattern {
  test(line: string): boolean;
  /** Where the first match in `line` starts, or -1 (for showing a window of a long line). */
  locate(line: string): number;
  readonly source: string;
}

/**
 * Compiles a pattern from a model or a person so that no input can make it hang: it runs on
 * V8's linear-time engine, which refuses backreferences and lookaround (an error that says so).
 * Where that engine is missing the pattern is searched as plain text. Case is ignored by
 * lower-casing both sides.
 *
 * @example
 * safePattern('ERROR|FAIL').test('2 FAILED'); // true
 * safePattern('(a+)+$').test('a'.repeat(50) + 'b'); // false, at once
 */
export function safePattern(pattern: string, options: { ignoreCase?: boolean } = {}): SafePattern {
  if (pattern.length === 0 || pattern.length > MAX_PATTERN_CHARS)
    throw new SpillwayError(
      'SPILLWAY_BAD_INPUT',
      `grep needs a pattern of 1 to ${MAX_PATTERN_CHARS} characters, got ${pattern.length}`,
    );
  const fold = options.ignoreCase === true;
  const source = fold ? lowerPattern(pattern) : pattern;
  if (!hasLinearEngine()) {
    // Plain text: as safe as it gets, and still what most searches are.
    return {
      source,
      test: (line) => (fold ? line.toLowerCase() : line).includes(source),
      locate: (line) => (fold ? line.toLowerCase() : line).indexOf(source),
    };
  }
  let regex: RegExp;
  try {
    regex = new RegExp(source, LINEAR);
  } catch (err) {
    const why = (err as Error).message;
    const counted = /\{(\d+)(?:,(\d*))?\}/g;
    const bigCount = [...source.matchAll(counted)].find((m) => Number(m[1]) > 16 || Number(m[2] || 0) > 16);
    throw new SpillwayError(
      'SPILLWAY_BAD_INPUT',
      /linear time/.test(why) && bigCount && !/\\[1-9]|\\k<|\(\?<?[=!]/.test(source)
        ? `the pattern ${JSON.stringify(pattern)} counts a repetition past 16 (${bigCount[0]}), which spillway's linear-time engine does not run; use + or * instead (e.g. [0-9a-f]+), or a count up to 16`
        : /linear time/.test(why)
          ? `the pattern ${JSON.stringify(pattern)} uses a backreference or lookaround, which spillway does not run (they can take exponential time); use a pattern without them`
          : `the pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${why.replace(/^Invalid regular expression: /, '')}`,
    );
  }
  // Lines without the plain text every match must contain are passed over at once: the linear
  // engine is safe but slower, and most lines of a large output hold none of it.
  const required = requiredTexts(source);
  return {
    source,
    test: (line) => {
      const text = fold ? line.toLowerCase() : line;
      if (required && !required.some((t) => text.includes(t))) return false;
      return regex.test(text);
    },
    locate: (line) => regex.exec(fold ? line.toLowerCase() : line)?.index ?? -1,
  };
}
