import type { RecallAnswer, RecallCall } from '../../providers/index.js';
import type { Store } from '../../store/index.js';
import { recallIdOf } from '../../text/index.js';
import { callExpandTool, EXPAND_TOOL } from '../../tools/index.js';
import { MAX_CALLS_PER_ROUND, MAX_RECALL_ROUNDS } from './turn.js';

/** The recall id a call names, read as expand reads it (a tag, plain or escaped, or the id). */
function idOf(args: unknown): string | undefined {
  const id = (args as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'string' ? recallIdOf(id) : undefined;
}

const LAST_NOTE = `\n[spillway: that was the last ${EXPAND_TOOL} answer for this turn (${MAX_RECALL_ROUNDS} rounds); answer with what you have]`;

/**
 * spillway's answers to one round's recall calls, from the store as /expand and the MCP tool
 * answer them. Only ids a marker of this conversation names are read: a request cannot reach
 * an original its own conversation was not shown. Bad arguments, unknown ids and calls past the
 * per-round bound are answered with an error text the model reads; nothing throws.
 *
 * @example
 * await answerCalls(store, [{ callId: 'toolu_1', name: 'spillway_expand', args: { id: 'Ab3' } }], new Set(['Ab3']), 0);
 */
export async function answerCalls(
  store: Store,
  calls: readonly RecallCall[],
  allowed: ReadonlySet<string>,
  round: number,
): Promise<RecallAnswer[]> {
  const answers: RecallAnswer[] = [];
  for (const [k, call] of calls.entries()) {
    const error = (text: string): RecallAnswer => ({ call, text, isError: true });
    const id = idOf(call.args);
    if (k >= MAX_CALLS_PER_ROUND)
      answers.push(
        error(
          `at most ${MAX_CALLS_PER_ROUND} ${EXPAND_TOOL} calls are answered at once; call it again for this one`,
        ),
      );
    else if (call.args === undefined)
      answers.push(error(`the arguments of ${EXPAND_TOOL} were not a JSON object`));
    else if (id === undefined)
      answers.push(error(`${EXPAND_TOOL} needs an id: pass it exactly as a marker gives it`));
    else if (!allowed.has(id))
      answers.push(
        error(
          `no marker in this conversation names the id ${JSON.stringify(id.slice(0, 80))}; pass the id exactly as a marker gives it`,
        ),
      );
    else {
      const result = await callExpandTool(store, call.args);
      answers.push({
        call,
        text: result.content.map((c) => c.text).join('\n'),
        isError: result.isError === true,
      });
    }
  }
  if (round === MAX_RECALL_ROUNDS - 1) {
    const last = answers.at(-1);
    if (last) last.text += LAST_NOTE;
  }
  return answers;
}
