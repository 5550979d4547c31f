import type { Conversation } from '../replay/transcript.js';

export type BodyApi = 'anthropic' | 'openai-chat' | 'openai-responses';

/**
 * The request body a client would send after `turns` turns of a conversation: each turn is an
 * assistant message calling the tools and the results coming back. The calls' arguments are
 * `{}` unless `withInputs`, then each result's `input`.
 */
export function requestBody(
  api: BodyApi,
  conversation: Conversation,
  turns: number,
  withInputs = false,
): { path: string; body: Record<string, unknown> } {
  const slice = conversation.turns.slice(0, turns);
  const input = (r: { input?: unknown }) => (withInputs ? (r.input ?? {}) : {});
  if (api === 'anthropic') {
    const messages: unknown[] = [{ role: 'user', content: `replay of ${conversation.id}` }];
    for (const turn of slice) {
      messages.push({
        role: 'assistant',
        content: turn.map((r) => ({ type: 'tool_use', id: r.id, name: r.tool || 'tool', input: input(r) })),
      });
      messages.push({
        role: 'user',
        content: turn.map((r) => ({
          type: 'tool_result',
          tool_use_id: r.id,
          content: r.content,
          ...(r.isError ? { is_error: true } : {}),
        })),
      });
    }
    return {
      path: '/v1/messages',
      body: {
        model: conversation.model ?? 'claude-sonnet-4-5',
        max_tokens: 1024,
        system: 'replay',
        messages,
      },
    };
  }
  if (api === 'openai-chat') {
    const messages: unknown[] = [
      { role: 'system', content: 'replay' },
      { role: 'user', content: `replay of ${conversation.id}` },
    ];
    for (const turn of slice) {
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: turn.map((r) => ({
          id: r.id,
          type: 'function',
          function: { name: r.tool || 'tool', arguments: JSON.stringify(input(r)) },
        })),
      });
      for (const r of turn) messages.push({ role: 'tool', tool_call_id: r.id, content: r.content });
    }
    return { path: '/v1/chat/completions', body: { model: conversation.model ?? 'gpt-4o', messages } };
  }
  const items: unknown[] = [{ role: 'user', content: `replay of ${conversation.id}` }];
  for (const turn of slice) {
    for (const r of turn)
      items.push({
        type: 'function_call',
        call_id: r.id,
        name: r.tool || 'tool',
        arguments: JSON.stringify(input(r)),
      });
    for (const r of turn)
      items.push({
        type: 'function_call_output',
        call_id: r.id,
        output: typeof r.content === 'string' ? r.content : JSON.stringify(r.content),
      });
  }
  return {
    path: '/v1/responses',
    body: { model: conversation.model ?? 'gpt-5', instructions: 'replay', input: items },
  };
}

/** The messages (or input items) of a body, each as canonical JSON, for prefix comparison. */
export function messagesOf(body: unknown): string[] {
  const b = body as { messages?: unknown[]; input?: unknown[] };
  return (b.messages ?? b.input ?? []).map((m) => JSON.stringify(m));
}

/**
 * POSTs a JSON body to a proxy under a session, as a client would.
 *
 * @example
 * const res = await postSession(`${proxy.url}/v1/messages`, body, 'build-1');
 */
export function postSession(url: string, body: unknown, session: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-spillway-session': session },
    body: JSON.stringify(body),
  });
}
