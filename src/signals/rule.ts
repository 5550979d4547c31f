import type { LineKind } from './kinds.js';

/**
 * One named rule of what matters in tool output: a line it matches is of its kind. Its marks
 * are what the pre-filter looks for (every line it matches contains one, case as written);
 * its middle marks, narrower and cheaper, are looked for in a long text's middle. Examples and
 * counter-examples are real lines; a generated test holds each rule to them.
 */
export interface SignalRule {
  /** `pack/name`, e.g. `python/traceback`: stable, shown by `spillway explain`. */
  id: string;
  kind: LineKind;
  /** Tested on a line's first 512 characters; flagless, so every rule joins into one regex. */
  pattern: RegExp;
  /** Regex sources; a line the pattern matches contains one of them. */
  marks: readonly string[];
  /**
   * Marks for the search of a long text's middle, where only what an agent must not miss is
   * looked for (errors, failures, exceptions, warnings): every example contains one.
   */
  middle?: readonly string[];
  /**
   * Plain words for the same search, each looked for on its own (indexOf): a mark whose first
   * characters no other middle mark starts with costs the middle regex a third more time at
   * every character, a word of its own a tenth of that.
   */
  middleWords?: readonly string[];
  /** Lines this rule classifies (by its id, not an earlier rule's). */
  examples: readonly string[];
  /** Lines it must not match. */
  counterExamples?: readonly string[];
}

/**
 * A path that marks a stack frame as not the program's own code (a runtime, a standard library,
 * an installed package): such frames rank after the program's own in a trace.
 */
export interface LibraryPath {
  id: string;
  /** A regex source, joined with the others into one regex. */
  pattern: string;
  examples: readonly string[];
}

/** The rules of one family of tools (a language, a runtime, a kind of log). */
export interface SignalPack {
  name: string;
  rules: readonly SignalRule[];
  libraryPaths?: readonly LibraryPath[];
}
