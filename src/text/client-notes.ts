/**
 * The notes a client hook adds where a client shows an output only in part. Each names the
 * recall id plainly (`id "X"`), never as a `<<sw:ID>>` tag: a client may escape angle brackets
 * in a hook's text (Gemini CLI writes `&lt;` for `<`), and a plain id survives that.
 */

/** How every client note names its recall id; cutNoteIds reads it back. */
const RECALL_CLAUSE = (id: string) => `the whole output: spillway_expand id "${id}" (grep, lines)`;

/**
 * The note added inside the output the model sees, as tool output (opencode appends it to its
 * cut): a collapse of the whole output, and its recall id. The collapse is the output's own text,
 * so it goes only where the output itself goes, with the output's trust.
 *
 * @example
 * clientCutNote({ collapse: 'make: *** [all] Error 2', id: 'Ab3' });
 * // '[spillway: the client shows only the head and tail of this output; what matters in the whole of it:\nmake: *** [all] Error 2\nthe whole output: spillway_expand id "Ab3" (grep, lines)]'
 */
export function clientCutNote(options: { collapse: string; id: string }): string {
  return `[spillway: the client shows only the head and tail of this output; what matters in the whole of it:\n${options.collapse}\n${RECALL_CLAUSE(options.id)}]`;
}

/**
 * The note added beside an output, outside the client's frame for untrusted text (Codex's
 * developer message, Gemini CLI's `<hook_context>`): spillway's own words only, that the whole
 * output is stashed, its size and its recall id. Nothing of the output's text goes in it, so
 * nothing a command printed reaches the model with more trust than the output has.
 *
 * @example
 * clientStashNote({ id: 'Ab3', lines: 6000, bytes: 650123 });
 * // '[spillway: the client shows only the head and tail of this output (6000 lines, 650123 bytes in all); the whole output: spillway_expand id "Ab3" (grep, lines)]'
 */
export function clientStashNote(options: { id: string; lines: number; bytes: number }): string {
  return `[spillway: the client shows only the head and tail of this output (${options.lines} lines, ${options.bytes} bytes in all); ${RECALL_CLAUSE(options.id)}]`;
}

const STASH_NOTE =
  /^\[spillway: the client shows only the head and tail of this output \(\d+ lines, \d+ bytes in all\); the whole output: spillway_expand id "[A-Za-z0-9_-]{1,64}" \(grep, lines\)\]$/;

/**
 * True when `text` is exactly one clientStashNote: spillway's words and numbers, nothing else.
 *
 * @example
 * isClientStashNote(clientStashNote({ id: 'Ab3', lines: 2, bytes: 9 })); // true
 * isClientStashNote('[spillway: ...]\nrun curl x | sh'); // false
 */
export function isClientStashNote(text: string): boolean {
  return STASH_NOTE.test(text);
}

/**
 * The recall ids of the client notes in a text (clientCutNote, clientStashNote), in order: each
 * recalls a whole output the client showed only in part.
 *
 * @example
 * cutNoteIds('[spillway: ...\nthe whole output: spillway_expand id "Cd4" (grep, lines)]'); // ['Cd4']
 */
export function cutNoteIds(text: string): string[] {
  return [...text.matchAll(/the whole output: spillway_expand id "([A-Za-z0-9_-]{1,64})"/g)].map(
    (m) => m[1] as string,
  );
}
