import type { Store } from '../store/index.js';

/** The note takes at most this many characters. */
export const NOTE_MAX_CHARS = 4000;
/** And at most this many tokens: what a collapse needs to show a failure with its context. */
const NOTE_MAX_TOKENS = 1000;

/**
 * The note a hook adds where a client shows an output only in part (its head and its tail): a
 * collapse of the whole output within `budget` characters (the lines that matter from anywhere
 * in it, JSON compacted to its odd items), and the recall id of the whole, stashed here. Nothing
 * the client shows is taken away. Undefined when the collapse cannot be stashed (a note that
 * names nothing to recall would only cost tokens).
 *
 * @example
 * const cut = await cutNote(store, output, { budget: 4000, tool: 'Bash', input }); // { note, id }
 */
export async function cutNote(
  store: Store,
  whole: Buffer,
  options: { budget: number; tool: string; input?: unknown },
): Promise<{ note: string; id: string } | undefined> {
  const [{ collapseWithin }, { clientCutNote }] = await Promise.all([
    import('../engine/collapse-output.js'),
    import('../text/markers.js'),
  ]);
  const frame = clientCutNote({ collapse: '', id: 'x'.repeat(22) }).length;
  const out = await collapseWithin(whole, {
    store,
    tool: options.tool,
    input: options.input,
    maxTokens: NOTE_MAX_TOKENS,
    maxChars: options.budget - frame,
  });
  if (out.step !== 'acted' || out.id === undefined || out.stashError !== undefined) return undefined;
  return { note: clientCutNote({ collapse: out.text, id: out.id }), id: out.id };
}
