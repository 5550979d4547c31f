import type { Store } from '../store/index.js';

/** The note takes at most this many characters. */
export const NOTE_MAX_CHARS = 4000;
/** And at most this many tokens: what a collapse needs to show a failure with its context. */
const NOTE_MAX_TOKENS = 1000;

/**
 * The note a hook adds where a client shows an output only in part (its head and its tail): a
 * collapse of the whole output within `charLimit` characters (the lines that matter from anywhere
 * in it, JSON compacted to its odd items), and the recall id of the whole, stashed here. Nothing
 * the client shows is taken away. Undefined when the collapse cannot be stashed (a note that
 * names nothing to recall would only cost tokens).
 *
 * @example
 * const cut = await cutNote(store, output, { charLimit: 4000, tool: 'Bash', input }); // { note, id }
 */
export async function cutNote(
  store: Store,
  whole: Buffer,
  options: { charLimit: number; tool: string; input?: unknown },
): Promise<{ note: string; id: string } | undefined> {
  const [{ collapseWithin }, { clientCutNote }] = await Promise.all([
    import('../collapse/output.js'),
    import('../text/markers.js'),
  ]);
  const frame = clientCutNote({ collapse: '', id: 'x'.repeat(22) }).length;
  const out = await collapseWithin(whole, {
    store,
    tool: options.tool,
    input: options.input,
    budget: NOTE_MAX_TOKENS,
    charLimit: options.charLimit - frame,
  });
  if (out.step !== 'acted' || out.id === undefined || out.stashError !== undefined) return undefined;
  return { note: clientCutNote({ collapse: out.text, id: out.id }), id: out.id };
}

/**
 * The note a hook adds beside an output, outside the client's frame for untrusted text (Codex's
 * developer message, Gemini CLI's hook context): the whole output stashed here, and only
 * spillway's own words about it (its size, its recall id), never its text. Undefined when the
 * output cannot be stashed.
 *
 * @example
 * const noted = await stashNote(store, output); // { note: '[spillway: ... id "Ab3" (grep, lines)]', id: 'Ab3' }
 */
export async function stashNote(
  store: Store,
  whole: Buffer,
): Promise<{ note: string; id: string } | undefined> {
  const [{ stash }, { clientStashNote }] = await Promise.all([
    import('../store/index.js'),
    import('../text/markers.js'),
  ]);
  let id: string;
  try {
    id = await stash(store, whole);
  } catch {
    return undefined; // a full or read-only store: a note naming nothing to recall would only cost tokens
  }
  // Lines as an editor numbers them (a last line without its newline counts too), as recall does.
  let lines = whole.length > 0 && whole.at(-1) !== 10 ? 1 : 0;
  for (let at = whole.indexOf(10); at !== -1; at = whole.indexOf(10, at + 1)) lines++;
  return { note: clientStashNote({ id, lines, bytes: whole.length }), id };
}
