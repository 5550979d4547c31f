import { isRecord } from '../text/json-values.js';
import type { ToolResult } from '../text/tool-result.js';
import {
  asContent,
  type CallTable,
  callInput,
  clientSessionOf,
  LatestWords,
  resultOf,
  seedOf,
  writeBack,
} from './shared.js';
import type { RequestAdapter, RequestView } from './types.js';

/**
 * OpenAI Chat Completions: `role: "tool"` messages (`tool_call_id`), with names from the
 * assistant's `tool_calls`.
 *
 * @example
 * openaiChatAdapter.view({ messages: [{ role: 'tool', tool_call_id: 'call_1', content: 'ok' }] })?.results.length; // 1
 */
export const openaiChatAdapter: RequestAdapter = {
  api: 'openai-chat',
  view(body): RequestView | null {
    if (!isRecord(body) || !Array.isArray(body.messages)) return null;
    const messages = body.messages as unknown[];
    const calls: CallTable = new Map();
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
            calls.set(call.id, {
              name: typeof fn?.name === 'string' ? fn.name : '',
              input: callInput(fn?.arguments ?? fn?.input),
              said: words.now(),
            });
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
    };
  },
};
