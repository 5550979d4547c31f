type Json = Record<string, unknown>;
/** The scripted model's step and turn, as far as Chat reads them (scripted-model.ts imports this file). */
type ModelStep =
  | { kind: 'call'; callId: string; name: string; input: Record<string, unknown> }
  | { kind: 'custom' }
  | { kind: 'answer'; text: string };
type ModelTurn = { api: string; tools: string[]; lastOutput?: { callId: string; text: string } };

/**
 * An OpenAI Chat request reduced to a `ModelTurn` (as `api: 'openai-chat'`): its tools' names and
 * its newest tool message.
 *
 * @example
 * chatTurn({ messages: [...], tools: [...] }).lastOutput?.text;
 */
export function chatTurn(body: Json): ModelTurn & { api: 'openai-chat' } {
  const tools = ((body.tools as Json[] | undefined) ?? []).map((t) =>
    String((t.function as Json | undefined)?.name),
  );
  const last = (body.messages as Json[] | undefined)?.at(-1);
  const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
  return {
    api: 'openai-chat',
    tools,
    ...(last?.role === 'tool' ? { lastOutput: { callId: String(last.tool_call_id), text } } : {}),
  };
}

const USAGE = {
  prompt_tokens: 100,
  completion_tokens: 10,
  total_tokens: 110,
  prompt_tokens_details: { cached_tokens: 0 },
};

/** A Chat answer: the message, or (stream) its chunks as SSE, usage last when asked for. */
export function chatAnswer(
  step: ModelStep,
  n: number,
  stream: boolean,
  usage: boolean,
): { type: string; text: string } {
  if (step.kind === 'custom') throw new Error('a custom tool call is a Responses API shape');
  const call = step.kind === 'call';
  const toolCall = call
    ? {
        id: step.callId,
        type: 'function',
        function: { name: step.name, arguments: JSON.stringify(step.input) },
      }
    : undefined;
  const finish = call ? 'tool_calls' : 'stop';
  const base = { id: `chatcmpl-${n}`, created: 1, model: 'gpt-4o' };
  if (!stream) {
    const message = {
      role: 'assistant',
      content: call ? null : step.text,
      ...(toolCall ? { tool_calls: [toolCall] } : {}),
    };
    const body = {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message, finish_reason: finish }],
      usage: USAGE,
    };
    return { type: 'application/json', text: JSON.stringify(body) };
  }
  const chunk = (delta: Json, finishReason: string | null, extra: Json = {}) =>
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
  const events = [
    chunk({ role: 'assistant', content: call ? null : '' }, null),
    call ? chunk({ tool_calls: [{ index: 0, ...toolCall }] }, null) : chunk({ content: step.text }, null),
    chunk({}, finish),
    ...(usage
      ? [
          `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage: USAGE })}\n\n`,
        ]
      : []),
    'data: [DONE]\n\n',
  ];
  return { type: 'text/event-stream', text: events.join('') };
}
