import type { LineKind } from './kinds.js';
import { passedTest } from './passed.js';
import { messagesOf } from './prefixes.js';
import type { SignalRule } from './rule.js';
import { ANY_RULE, KIND_GROUPS, RULES } from './table.js';

// Where each rule stands in the order rules are tried: of the rules that name a line and its
// messages, the first in that order wins.
const ORDER = new Map(RULES.map((rule, i) => [rule, i]));

/**
 * The rule that names a line (the first that matches, see RULES), or undefined for an
 * ordinary line. A line is tried as it is and without its prefixes (see prefixes.ts), and the
 * rule first in the order wins: rules are written for the message, so a CI timestamp or a
 * colour code before `file.py:3: error:` must not leave it to a generic rule the whole line
 * matches. A line that reports a passed test is named by none (see passed.ts). Only a line's
 * first 512 characters are looked at: a regex over a megabyte line would cost time for nothing.
 *
 * @example
 * lineSignal('Traceback (most recent call last):')?.id; // 'python/traceback'
 */
export function lineSignal(line: string): SignalRule | undefined {
  const start = line.length > 512 ? line.slice(0, 512) : line;
  let best = ruleOf(start);
  if (best && passedTest(start)) return undefined;
  for (const message of messagesOf(start)) {
    const found = ruleOf(message);
    if (!found) continue;
    if (passedTest(message)) return undefined;
    if (!best || (ORDER.get(found) as number) < (ORDER.get(best) as number)) best = found;
  }
  return best;
}

/**
 * The kind of a line, or undefined for an ordinary one.
 *
 * @example
 * lineKind('src/pay.ts:88:3 - error TS2345: Argument of type ...'); // 'error'
 * lineKind('Traceback (most recent call last):'); // 'exception'
 * lineKind('  compiled module-12.ts in 4 ms'); // undefined
 */
export function lineKind(line: string): LineKind | undefined {
  return lineSignal(line)?.kind;
}

function ruleOf(line: string): SignalRule | undefined {
  if (!ANY_RULE.test(line)) return undefined;
  for (const group of KIND_GROUPS)
    if (group.any.test(line)) for (const rule of group.rules) if (rule.pattern.test(line)) return rule;
  return undefined;
}
