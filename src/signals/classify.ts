import type { LineKind } from './kinds.js';
import { messagesOf } from './prefixes.js';
import type { SignalRule } from './rule.js';
import { ANY_RULE, KIND_GROUPS } from './table.js';

/**
 * The rule that names a line (the first that matches, see RULES), or undefined for an
 * ordinary line; a line no rule names as it is is tried without its prefixes (see prefixes.ts). Only a line's first 512 characters are looked at: a regex over a megabyte line
 * would cost time for nothing.
 *
 * @example
 * lineSignal('Traceback (most recent call last):')?.id; // 'python/traceback'
 */
export function lineSignal(line: string): SignalRule | undefined {
  const start = line.length > 512 ? line.slice(0, 512) : line;
  const rule = ruleOf(start);
  if (rule) return rule;
  // A line with a timestamp, a colour or its source before its message: the message's rule.
  for (const message of messagesOf(start)) {
    const found = ruleOf(message);
    if (found) return found;
  }
  return undefined;
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
