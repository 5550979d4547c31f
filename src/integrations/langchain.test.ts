import { ChatAnthropic } from '@langchain/anthropic';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildLog } from '../test-support/build-log.js';
import {
  type ModelStep,
  type ModelTurn,
  type ScriptedModel,
  startScriptedModel,
} from '../test-support/scripted-model.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { spillwayExpandTool, spillwayPreModelHook } from './langchain.js';

const o200k = getTokenizer('o200k');
const { text: log, error } = buildLog();

function script(turn: ModelTurn): ModelStep {
  if (!turn.lastOutput) return { kind: 'call', callId: 'toolu_build', name: 'build', input: {} };
  if (turn.lastOutput.callId === 'toolu_build') {
    const id = /<<sw:([\w-]+)>>/.exec(turn.lastOutput.text)?.[1] ?? 'none';
    return { kind: 'call', callId: 'toolu_recall', name: 'spillway_expand', input: { id, grep: 'amount' } };
  }
  return { kind: 'answer', text: 'amount is undeclared' };
}

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

describe("LangGraph's createReactAgent with the pre-model hook (@langchain/anthropic against a scripted model)", () => {
  it('the error of a 650 KB build log reaches the model within budget, recall returns it, the prefix holds; the state keeps the whole', async () => {
    model = await startScriptedModel(script);
    const hook = spillwayPreModelHook({ tokens: 2000 });
    const build = tool(async () => log, {
      name: 'build',
      description: 'Runs the build',
      schema: z.object({}),
    });
    const llm = new ChatAnthropic({
      model: 'claude-sonnet-4-5',
      apiKey: 'sk-ant-test',
      anthropicApiUrl: model.url,
      maxRetries: 0,
    });
    const agent = createReactAgent({
      llm,
      tools: [build, spillwayExpandTool(hook.store)],
      preModelHook: hook,
    });
    const state = await agent.invoke({
      messages: [{ role: 'user', content: 'Build the project and fix it.' }],
    });
    expect(String(state.messages.at(-1)?.content)).toBe('amount is undeclared');
    // The graph's state still holds the build's whole output.
    expect(state.messages.some((m) => m.content === log)).toBe(true);

    const requests = model.seen
      .filter((r) => r.url.startsWith('/v1/messages'))
      .map((r) => r.json as { messages: unknown[] });
    expect(requests).toHaveLength(3);
    const [, second, third] = requests as [unknown, { messages: unknown[] }, { messages: unknown[] }];
    const shown = JSON.stringify(second.messages.at(-1));
    expect(shown).toContain(JSON.stringify(error).slice(1, -1));
    expect(o200k.count(shown)).toBeLessThanOrEqual(2200);
    expect(JSON.stringify(third.messages.at(-1))).toContain(JSON.stringify(error).slice(1, -1));
    const before = second.messages.map((m) => JSON.stringify(m));
    expect(third.messages.slice(0, before.length).map((m) => JSON.stringify(m))).toEqual(before);
  });
});
