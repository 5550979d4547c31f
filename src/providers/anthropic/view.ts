import { isRecord, type ToolResult } from '../../text/index.js';
import { CallSlots } from '../call-slots.js';
import {
  asContent,
  type CallTable,
  clientSessionOf,
  LatestWords,
  resultOf,
  seedOf,
  writeBack,
} from '../shared.js';
import type { RequestAdapter, RequestView } from '../view.js';

/**
 * Anthropic Messages (also /v1/messages/count_tokens): `tool_result` blocks in user messages,
 * with names from the assistant's `tool_use` blocks.
 *
 * @example
 * const view = anthropicAdapter.view(JSON.parse(body));
 * view?.results.map((r) => r.tool); // ['Bash', 'Read']
 */
export const anthropicAdapter: RequestAdapter<'anthropic'> = {
  api: 'anthropic',
  view(body): RequestView<'anthropic'> | null {
    if (!isRecord(body) || !Array.isArray(body.messages)) return null;
    const messages = body.messages as unknown[];
    const calls: CallTable = new Map();
    const callSlots = new CallSlots();
    const words = new LatestWords();
    const results: ToolResult[] = [];
    const slots: Record<string, unknown>[] = [];
    messages.forEach((message, position) => {
      if (isRecord(message) && typeof message.content === 'string') words.hear(message.role, message.content);
      if (!isRecord(message) || !Array.isArray(message.content)) return;
      for (const block of message.content) {
        if (!isRecord(block)) continue;
        if (block.type === 'text') words.hear(message.role, block.text);
        if (block.type === 'tool_use' && typeof block.id === 'string') {
          const name = typeof block.name === 'string' ? block.name : '';
          calls.set(block.id, { name, input: block.input, said: words.now() });
          callSlots.add(block, 'input', { id: block.id, tool: name, position });
        }
        if (block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
        const content = block.content === undefined ? '' : asContent(block.content);
        if (content === null) continue;
        results.push(resultOf(block.tool_use_id, calls, content, position, block.is_error === true));
        slots.push(block);
      }
    });
    const firstUser = messages.find((m) => isRecord(m) && m.role === 'user');
    return {
      api: 'anthropic',
      results,
      messageCount: messages.length,
      clientSession: clientSessionOf(body),
      sessionSeed: seedOf('anthropic', body.system, isRecord(firstUser) ? firstUser.content : null),
      continuesServerState: false,
      apply: writeBack(slots, 'content'),
      calls: callSlots.calls,
      applyCalls: callSlots.apply,
      readCallsFrom: (raw, parsed) => callSlots.readFrom(raw, parsed),
    };
  },
};
