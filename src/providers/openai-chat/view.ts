import { isRecord, type ToolResult } from '../../text/index.js';
import { CallSlots } from '../call-slots.js';
import {
  asContent,
  type CallTable,
  callInput,
  clientSessionOf,
  LatestWords,
  resultOf,
  seedOf,
  writeBack,
} from '../shared.js';
import type { RequestAdapter, RequestView } from '../view.js';

/**
 * OpenAI Chat Completions: `role: "tool"` messages (`tool_call_id`), with names from the
 * assistant's `tool_calls`.
 *
 * @example
 * openaiChatAdapter.view({ messages: [{ role: 'tool', tool_call_id: 'call_1', content: 'ok' }] })?.results.length; // 1
 */
export const openaiChatAdapter: RequestAdapter<'openai-chat'> = {
  api: 'openai-chat',
  view(body): RequestView<'openai-chat'> | null {
    if (!isRecord(body) || !Array.isArray(body.messages)) return null;
    const messages = body.messages as unknown[];
    const calls: CallTable = new Map();
    const callSlots = new CallSlots();
    const words = new LatestWords();
    const results: ToolResult[] = [];
    const slots: Record<string, unknown>[] = [];
    messages.forEach((message, position) => {
      if (!isRecord(message)) return;
      words.hear(message.role, message.content);
      if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
        for (const call of message.tool_calls) {
          if (isRecord(call) && typeof call.id === 'string') {
            const fn = isRecord(call.function)
              ? call.function
              : isRecord(call.custom)
                ? call.custom
                : undefined;
            const name = typeof fn?.name === 'string' ? fn.name : '';
            calls.set(call.id, { name, input: callInput(fn?.arguments ?? fn?.input), said: words.now() });
            // A custom tool's input is freeform text, a function's arguments JSON text.
            if (fn) {
              const freeform = fn === call.custom;
              callSlots.add(fn, freeform ? 'input' : 'arguments', {
                id: call.id,
                tool: name,
                position,
                freeform,
              });
            }
          }
        }
      }
      if (message.role !== 'tool' || typeof message.tool_call_id !== 'string') return;
      const content = asContent(message.content ?? '');
      if (content === null) return;
      results.push(resultOf(message.tool_call_id, calls, content, position));
      slots.push(message);
    });
    const system = messages
      .filter((m) => isRecord(m) && (m.role === 'system' || m.role === 'developer'))
      .map((m) => (m as Record<string, unknown>).content);
    const firstUser = messages.find((m) => isRecord(m) && m.role === 'user');
    return {
      api: 'openai-chat',
      results,
      messageCount: messages.length,
      clientSession: clientSessionOf(body),
      sessionSeed: seedOf('openai-chat', system, isRecord(firstUser) ? firstUser.content : null),
      continuesServerState: false,
      apply: writeBack(slots, 'content'),
      calls: callSlots.calls,
      applyCalls: callSlots.apply,
      readCallsFrom: (raw, parsed) => callSlots.readFrom(raw, parsed),
    };
  },
};
