import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MemoryStore } from '../store/memory-store.js';
import { buildLog } from '../test-support/build-log.js';
import {
  type ModelStep,
  type ModelTurn,
  type ScriptedModel,
  startScriptedModel,
} from '../test-support/scripted-model.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { spillway, spillwayExpand } from './ai-sdk.js';

const o200k = getTokenizer('o200k');
const { text: log, error } = buildLog();

/** The agent's loop as the model plays it: build, recall the error by grep, answer. */
function script(turn: ModelTurn): ModelStep {
  if (!turn.lastOutput) return { kind: 'call', callId: 'call_build', name: 'build', input: {} };
  if (turn.lastOutput.callId === 'call_build') {
    const id = /<<sw:([\w-]+)>>/.exec(turn.lastOutput.text)?.[1] ?? 'none';
    return {
      kind: 'call',
      callId: 'call_recall',
      name: 'spillway_expand',
      input: { id, grep: 'amount' },
    };
  }
  return { kind: 'answer', text: 'the build failed on amount' };
}

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** The conversation items each request sent (Responses `input`, Messages `messages`). */
const itemsOf = (json: unknown): unknown[] => {
  const body = json as { input?: unknown[]; messages?: unknown[] };
  return body.input ?? body.messages ?? [];
};

describe('the AI SDK middleware (ai 6, real providers against a scripted model)', () => {
  for (const provider of ['openai', 'anthropic'] as const)
    it(`${provider}: the error of a 650 KB build log reaches the model within budget, recall returns it, the prefix holds`, async () => {
      model = await startScriptedModel(script);
      const sw = spillway({ tokens: 2000, store: new MemoryStore() });
      const base =
        provider === 'openai'
          ? createOpenAI({ baseURL: `${model.url}/v1`, apiKey: 'sk-test' })('gpt-5')
          : createAnthropic({ baseURL: `${model.url}/v1`, apiKey: 'sk-ant-test' })('claude-sonnet-4-5');
      const wrapped = wrapLanguageModel({ model: base, middleware: sw });
      const tools = {
        build: { description: 'Runs the build', inputSchema: z.object({}), execute: async () => log },
        spillway_expand: spillwayExpand(sw.store),
      };
      const call = {
        model: wrapped,
        tools,
        stopWhen: stepCountIs(5),
        prompt: 'Build the project and fix it.',
      };
      const text = provider === 'openai' ? await streamText(call).text : (await generateText(call)).text;
      expect(text).toBe('the build failed on amount');

      const requests = model.seen.filter((r) => r.method === 'POST').map((r) => r.json);
      expect(requests).toHaveLength(3);
      const [, second, third] = requests;
      // What the model saw of the build: within budget, the error line whole, the recall id named.
      const seen = JSON.stringify(itemsOf(second).at(-1));
      const shown = String(
        (itemsOf(second).at(-1) as { output?: unknown; content?: unknown[] }).output ??
          JSON.stringify((itemsOf(second).at(-1) as { content: unknown[] }).content),
      );
      expect(seen).toContain(JSON.stringify(error).slice(1, -1));
      expect(o200k.count(shown)).toBeLessThanOrEqual(2100);
      expect(seen.length).toBeLessThan(20_000);
      // The recall's answer holds the error line exactly.
      expect(JSON.stringify(itemsOf(third).at(-1))).toContain(JSON.stringify(error).slice(1, -1));
      // Every item the second request sent went again, byte for byte, in the third.
      const before = itemsOf(second).map((i) => JSON.stringify(i));
      expect(
        itemsOf(third)
          .slice(0, before.length)
          .map((i) => JSON.stringify(i)),
      ).toEqual(before);
    });
});
