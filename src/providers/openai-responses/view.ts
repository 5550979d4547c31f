import { type Content, type ContentBlock, isRecord, isTextBlock, type ToolResult } from '../../text/index.js';
import { CallSlots } from '../call-slots.js';
import {
  type CallTable,
  callInput,
  clientSessionOf,
  LatestWords,
  resultOf,
  seedOf,
  writeBack,
} from '../shared.js';
import type { RequestAdapter, RequestView } from '../view.js';

const CALLS = new Set(['function_call', 'custom_tool_call']);
const OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output']);

/** Responses output parts use `input_text`; the engine's text blocks use `text`. */
function toContent(output: unknown): Content | null {
  if (typeof output === 'string') return output;
  if (!Array.isArray(output) || !output.every((p) => isRecord(p) && typeof p.type === 'string')) return null;
  return output.map((p) => {
    const part = p as Record<string, unknown>;
    return part.type === 'input_text' && typeof part.text === 'string' ? { ...part, type: 'text' } : part;
  }) as ContentBlock[];
}

function fromContent(content: Content): unknown {
  if (typeof content === 'string') return content;
  return content.map((b) => (isTextBlock(b) ? { ...b, type: 'input_text' } : b));
}

/**
 * OpenAI Responses: `function_call_output` and `custom_tool_call_output` items (`call_id`),
 * with names from `function_call` / `custom_tool_call` items.
 *
 * @example
 * openaiResponsesAdapter.view({ input: [{ type: 'function_call_output', call_id: 'c1', output: 'ok' }] })?.results.length; // 1
 */
export const openaiResponsesAdapter: RequestAdapter<'openai-responses'> = {
  api: 'openai-responses',
  view(body): RequestView<'openai-responses'> | null {
    if (!isRecord(body) || !('input' in body)) return null;
    const input = Array.isArray(body.input) ? (body.input as unknown[]) : [];
    const calls: CallTable = new Map();
    const callSlots = new CallSlots();
    const words = new LatestWords();
    const results: ToolResult[] = [];
    const slots: Record<string, unknown>[] = [];
    input.forEach((item, position) => {
      if (!isRecord(item)) return;
      // A message: `{ role, content }`, its type "message" or left out.
      if ((item.type === 'message' || item.type === undefined) && 'role' in item)
        words.hear(item.role, item.content);
      if (typeof item.type !== 'string') return;
      if (CALLS.has(item.type) && typeof item.call_id === 'string') {
        const name = typeof item.name === 'string' ? item.name : '';
        calls.set(item.call_id, { name, input: callInput(item.arguments ?? item.input), said: words.now() });
        const freeform = item.type === 'custom_tool_call';
        callSlots.add(item, freeform ? 'input' : 'arguments', {
          id: item.call_id,
          tool: name,
          position,
          freeform,
        });
      }
      if (!OUTPUTS.has(item.type) || typeof item.call_id !== 'string') return;
      const content = toContent(item.output ?? '');
      if (content === null) return;
      results.push(resultOf(item.call_id, calls, content, position));
      slots.push(item);
    });
    const firstUser = input.find((i) => isRecord(i) && (i.role === 'user' || i.type === 'message'));
    return {
      api: 'openai-responses',
      results,
      messageCount: input.length,
      clientSession: clientSessionOf(body),
      sessionSeed: seedOf(
        'openai-responses',
        body.instructions,
        typeof body.input === 'string' ? body.input : isRecord(firstUser) ? firstUser.content : null,
      ),
      continuesServerState: typeof body.previous_response_id === 'string',
      apply: writeBack(slots, 'output', fromContent),
      calls: callSlots.calls,
      applyCalls: callSlots.apply,
      readCallsFrom: (raw, parsed) => callSlots.readFrom(raw, parsed),
    };
  },
};
