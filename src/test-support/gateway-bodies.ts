/**
 * Conversations as the AI gateways hand them to spillway: OpenAI chat (what LiteLLM, Kong and
 * Portkey's chatComplete send) and Anthropic messages, each turn a tool call and its long log.
 */

/** A build log of `lines` lines with one error line in it, different per `tag`. */
export function buildLog(tag: string, lines = 3000): string {
  return Array.from({ length: lines }, (_, i) =>
    i === Math.floor(lines * 0.7)
      ? `ERROR ${tag}: connection refused at db/pool.ts:42`
      : `INFO ${tag} step ${i} ok compiled module m${i} in ${(i * 7) % 113} ms`,
  ).join('\n');
}

export type ChatMessage = Record<string, unknown>;

/** An OpenAI chat conversation after `turns` tool calls, its call ids prefixed with `agent`. */
export function chatConversation(
  agent: string,
  turns: number,
  system = 'You are a build agent.',
): ChatMessage[] {
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: 'Why does the build fail?' },
  ];
  for (let t = 0; t < turns; t++) {
    const id = `call_${agent}_${t}`;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: [
        { id, type: 'function', function: { name: 'bash', arguments: `{"cmd":"make step${t}"}` } },
      ],
    });
    messages.push({ role: 'tool', tool_call_id: id, content: buildLog(`${agent}${t}`) });
  }
  return messages;
}

/** The same as Anthropic messages, each result as text blocks. */
export function anthropicConversation(agent: string, turns: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: 'Why does the build fail?' }];
  for (let t = 0; t < turns; t++) {
    const id = `toolu_${agent}_${t}`;
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id, name: 'Bash', input: { command: `make step${t}` } }],
    });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text: buildLog(`${agent}${t}`) }] },
      ],
    });
  }
  return messages;
}

/** The `hash=` markers in a text. */
export const hashesIn = (text: string): string[] =>
  [...text.matchAll(/hash=([a-f0-9]{24})/g)].map((m) => m[1] as string);

/** POSTs JSON and reads the JSON answer. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}
