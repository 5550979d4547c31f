/**
 * A file's outline: the lines that define something (functions, classes, types, modules) or
 * head a section (Markdown headings), near the left margin. A read of a file too long for its
 * budget shows these rather than only its two ends.
 */

/** A line that starts a definition or a heading. */
export interface OutlineLine {
  line: number;
  start: number;
  end: number;
}

// A line number a reader put before each line: cat -n's and Claude Code's `   12→`.
const NUMBERED = /^\s*\d+(?:→|\t)/;
// Definitions in the common languages, at most four spaces in; Markdown's first three heading levels.
const DEFINITION =
  /^ {0,4}(?:(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?\s+[\w$]|class\s+\w|interface\s+\w|type\s+\w+\s*(?:<[^>]*>)?\s*=|enum\s+\w|(?:const|let)\s+[\w$]+\s*=\s*(?:async\s*)?(?:\([^)]*\)|[\w$]+)\s*=>)|(?:async\s+)?def\s+\w|class\s+\w|(?:pub(?:\([\w:]+\))?\s+)?(?:fn|struct|enum|trait|impl|mod)\b|func\s|type\s+\w+\s+(?:struct|interface)|module\s+\w|defmodule\s|defp?\s+\w|#{1,3}\s+\S)/;
const MAX_OUTLINE = 200;

/**
 * The outline lines of `text`, in order (at most 200).
 *
 * @example
 * outlineLines('import x\n\nexport function charge() {\n  return 1;\n}').map((l) => l.line); // [2]
 */
export function outlineLines(text: string): OutlineLine[] {
  const out: OutlineLine[] = [];
  let line = 0;
  for (let start = 0; start <= text.length && out.length < MAX_OUTLINE; line++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const head = text.slice(start, Math.min(end, start + 200));
    const numbered = NUMBERED.exec(head)?.[0];
    if (DEFINITION.test(numbered ? head.slice(numbered.length) : head)) out.push({ line, start, end });
    start = end + 1;
  }
  return out;
}
