import type { LineKind } from './kinds.js';
import type { SignalRule } from './rule.js';
import { ANY_RULE, KIND_GROUPS } from './table.js';

/**
 * The source a tool that merges several outputs puts before each line: docker compose and
 * foreman (`web-1  | `, `12:00:01 web.1  | `), turbo (`web:test: `), concurrently and kubectl's
 * --prefix (`[web] `).
 */
const SOURCE_PREFIX =
  /^(?:(?:\d\d:\d\d:\d\d\s+)?[\w.@/-]+\s*\| ?|[\w.@/-]+:[A-Za-z][\w.-]*: |\[[\w.@/:-]+\] )/;

/**
 * The rule that names a line (the first that matches, see RULES), or undefined for an
 * ordinary line. Only a line's first 512 characters are looked at: a regex over a megabyte line
 * would cost time for nothing.
 *
 * @example
 * lineSignal('Traceback (most recent call last):')?.id; // 'python/traceback'
 */
export function lineSignal(line: string): SignalRule | undefined {
  const start = line.length > 512 ? line.slice(0, 512) : line;
  const rule = ruleOf(start);
  if (rule) return rule;
  // A line of merged output names its source first: its text is a line like any other.
  const prefix = SOURCE_PREFIX.exec(start)?.[0];
  return prefix ? ruleOf(start.slice(prefix.length)) : undefined;
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
