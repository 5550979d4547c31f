import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUILD_ERROR,
  buildConversation,
  finalAnswer,
  recallingModel,
  recallProxy,
} from '../../test-support/recall-fixture.js';
import type { ScriptedModel } from '../../test-support/scripted-model.js';
import type { RunningProxy } from '../server.js';

let model: ScriptedModel;
let proxy: RunningProxy;
let close = async () => {};

beforeAll(async () => {
  ({ model, proxy, close } = await recallProxy(recallingModel));
});
afterAll(() => close());

type Api = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini';

const post = (path: string, body: unknown, session: string, headers: Record<string, string> = {}) =>
  fetch(`${proxy.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-spillway-session': session, ...headers },
    body: JSON.stringify(body),
  });

/** The input and output tokens the client reads from the answer (a stream's last report). */
function reportedUsage(api: Api, stream: boolean, text: string): { input: number; output: number } {
  const events = stream
    ? text
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data: {'))
        .map((l) => JSON.parse(l.slice(6)))
    : [JSON.parse(text)];
  // biome-ignore lint/suspicious/noExplicitAny: each API's usage read by hand
  const usage = events.flatMap((e: any) => {
    if (api === 'gemini')
      return e.usageMetadata
        ? [{ input: e.usageMetadata.promptTokenCount, output: e.usageMetadata.candidatesTokenCount }]
        : [];
    const u = e.usage ?? e.response?.usage;
    if (!u) return [];
    if (api === 'openai-chat') return [{ input: u.prompt_tokens, output: u.completion_tokens }];
    return [{ input: u.input_tokens, output: u.output_tokens }];
  });
  return usage.at(-1) ?? { input: 0, output: 0 };
}

const APIS: Api[] = ['anthropic', 'openai-chat', 'openai-responses', 'gemini'];

describe('recall through the proxy alone', () => {
  for (const api of APIS)
    for (const stream of [false, true])
      it(`${api}${stream ? ', streamed' : ''}: the model recalls the error line and the agent gets the final answer`, async () => {
        const session = `recall-${api}-${stream}`;
        const before = model.seen.length;
        const { path, body } = buildConversation(api, stream);
        const res = await post(path, body, session);
        const text = await res.text();
        expect(res.status).toBe(200);
        const rounds = model.seen.slice(before);
        expect(rounds).toHaveLength(2);
        // The model was offered the tool, and its second round holds the recalled line.
        expect(rounds[0]?.body.toString()).toContain('"spillway_expand"');
        expect(rounds[1]?.body.toString()).toContain(JSON.stringify(BUILD_ERROR).slice(1, -1));
        // The agent gets the final answer and never a call of a tool it does not have.
        expect(text.replaceAll('\\u0060', '`')).toContain(finalAnswer(BUILD_ERROR).slice(0, 40));
        expect(text).not.toContain('spillway_expand');
        // Both rounds' usage, reported as the answer's: 100 in and 10 out each.
        expect(reportedUsage(api, stream, text)).toEqual({ input: 200, output: 20 });
      });
});
