/**
 * The one table of what matters in tool output, and everything derived from it: the order
 * rules are tried in, the regex that rules a line out at once, the pre-filters, and the paths
 * of library frames. A format is taught here, as a rule with examples, and nowhere else.
 */

import { anyOf, anyPattern } from './any-of.js';
import { KIND_PRECEDENCE, type LineKind } from './kinds.js';
import {
  build,
  c,
  ciSignals,
  code,
  core,
  dotnet,
  elixir,
  git,
  go,
  jvm,
  k8s,
  logs,
  node,
  php,
  prose,
  python,
  ruby,
  rust,
  unix,
} from './packs/index.js';
import type { SignalPack, SignalRule } from './rule.js';

/**
 * Every pack; a format's own before the generic core, so a line both match is named by the
 * format's rule.
 */
export const PACKS: readonly SignalPack[] = [
  ciSignals,
  python,
  jvm,
  build,
  go,
  rust,
  ruby,
  elixir,
  php,
  dotnet,
  node,
  k8s,
  logs,
  unix,
  c,
  git,
  core,
  code,
  prose,
];

/**
 * Every rule, in the order they are tried: by kind (see KIND_PRECEDENCE), then as the packs
 * list them. The first that matches names the line.
 */
export const RULES: readonly SignalRule[] = PACKS.flatMap((p) => p.rules)
  .map((rule, order) => ({ rule, order }))
  .sort(
    (a, b) =>
      KIND_PRECEDENCE.indexOf(a.rule.kind) - KIND_PRECEDENCE.indexOf(b.rule.kind) || a.order - b.order,
  )
  .map(({ rule }) => rule);

/**
 * Whether any rule matches, in one regex: most lines the pre-filters find are ordinary, and
 * this rules them out at a fraction of the cost of trying each rule.
 */
export const ANY_RULE = anyPattern(
  RULES.map((rule) => {
    // A flag would not carry over into the joined regex (caseless() stands in for "i").
    if (rule.pattern.flags) throw new Error(`signal rule ${rule.id} has flags: ${rule.pattern}`);
    return rule.pattern.source;
  }),
);

/** The rules of one kind, and one regex that matches where any of them does. */
export interface KindGroup {
  kind: LineKind;
  any: RegExp;
  rules: readonly SignalRule[];
}

/**
 * RULES by kind, in the order kinds are tried: a line is tried against a kind's rules one by
 * one only when the kind's regex matches it (a warning is not tried against forty error rules).
 *
 * @example
 * KIND_GROUPS[0]?.kind; // 'exception'
 */
export const KIND_GROUPS: readonly KindGroup[] = KIND_PRECEDENCE.map((kind) => {
  const rules = RULES.filter((rule) => rule.kind === kind);
  return { kind, rules, any: anyPattern(rules.map((rule) => rule.pattern.source)) };
}).filter((group) => group.rules.length > 0);

const unique = (marks: readonly string[]) => [...new Set(marks)];

/**
 * The first pass: every line a rule matches contains one of the rules' marks (the generated
 * test holds each rule's examples to that). Global and shared; a caller sets lastIndex.
 *
 * @example
 * CANDIDATE.lastIndex = 0;
 * CANDIDATE.exec('ok\nsrc/a.ts:3:7 - error TS2322')?.index; // 11 (its ':3:7')
 */
export const CANDIDATE = anyOf(unique(RULES.flatMap((r) => r.marks)), 'gm');

/**
 * The pass over the middle of a long text: the middle marks of the rules (errors, failures,
 * exceptions, warnings), about three times as fast a character as CANDIDATE. "error"
 * counts when a colon or a bracket follows it; prose and code that merely name errors are not
 * candidates.
 *
 * @example
 * MIDDLE.lastIndex = 0;
 * MIDDLE.exec('ok\nValueError: bad input')?.index; // 9 (its 'rror:')
 */
export const MIDDLE = anyOf(unique(RULES.flatMap((r) => r.middle ?? [])), 'g');

/**
 * The words looked for in the middle of a long text besides MIDDLE's marks, each on its own.
 *
 * @example
 * MIDDLE_WORDS.includes('warn'); // true
 */
export const MIDDLE_WORDS: readonly string[] = unique(RULES.flatMap((r) => r.middleWords ?? []));

/**
 * Where a frame is not the program's own code: a language's standard library or runtime, an
 * installed package, a system library. Told by the path alone, so a trace whose frames name
 * none of these is taken as it is.
 *
 * @example
 * LIBRARY_FRAME.test('    at run (node:internal/main:12:3)'); // true
 */
export const LIBRARY_FRAME = new RegExp(
  PACKS.flatMap((p) => p.libraryPaths ?? [])
    .map((p) => p.pattern)
    .join('|'),
);
