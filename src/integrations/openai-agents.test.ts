import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
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
import { spillwayExpandTool, spillwayInputFilter } from './openai-agents.js';

const o200k = getTokenizer('o200k');
const { text: log, error } = buildLog();
setTracingDisabled(true);

function script(turn: ModelTurn): ModelStep {
  if (!turn.lastOutput) return { kind: 'call', callId: 'call_build', name: 'build', input: {} };
  if (turn.lastOutput.callId === 'call_build') {
    const id = /<<sw:([\w-]+)>>/.exec(turn.lastOutput.text)?.[1] ?? 'none';
    return { kind: 'call', callId: 'call_recall', name: 'spillway_expand', input: { id, grep: 'amount' } };
  }
  return { kind: 'answer', text: 'amount is undeclared' };
}

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

describe('the OpenAI Agents SDK filter (@openai/agents against a scripted model)', () => {
  it('the error of a 650 KB build log reaches the model within budget, recall returns it, the prefix holds', async () => {
    model = await startScriptedModel(script);
    const filter = spillwayInputFilter({ tokens: 2000 });
    const build = tool({
      name: 'build',
      description: 'Runs the build',
      parameters: z.object({}),
      execute: async () => log,
    });
    const agent = new Agent({
      name: 'builder',
      model: 'gpt-5',
      tools: [build, spillwayExpandTool(filter.store)],
    });
    const runner = new Runner({
      modelProvider: new OpenAIProvider({
        openAIClient: new OpenAI({ baseURL: `${model.url}/v1`, apiKey: 'sk-test' }),
      }),
      callModelInputFilter: filter,
    });
    const result = await runner.run(agent, 'Build the project and fix it.', { stream: true });
    await result.completed;
    expect(result.finalOutput).toBe('amount is undeclared');

    const requests = model.seen.filter((r) => r.method === 'POST').map((r) => r.json as { input: unknown[] });
    expect(requests).toHaveLength(3);
    const [, second, third] = requests as [unknown, { input: unknown[] }, { input: unknown[] }];
    const built = second.input.at(-1) as { output: unknown };
    const shown = typeof built.output === 'string' ? built.output : JSON.stringify(built.output);
    expect(shown).toContain(JSON.stringify(error).slice(1, -1));
    expect(o200k.count(shown)).toBeLessThanOrEqual(2100);
    expect(JSON.stringify(third.input.at(-1))).toContain(JSON.stringify(error).slice(1, -1));
    const before = second.input.map((i) => JSON.stringify(i));
    expect(third.input.slice(0, before.length).map((i) => JSON.stringify(i))).toEqual(before);
  });
});
