import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AGENT_ANSWER,
  AGENT_LOG,
  buildAndRecall,
  expectBuildAndRecall,
  scriptedModelPerTest,
} from '../test-support/agent-loop.js';
import { spillwayExpandTool, spillwayInputFilter } from './openai-agents.js';

setTracingDisabled(true);
const models = scriptedModelPerTest();

describe('the OpenAI Agents SDK filter (@openai/agents against a scripted model)', () => {
  it('the error of a 650 KB build log reaches the model within budget, recall returns it, the prefix holds', async () => {
    const model = await models.start(buildAndRecall('call_'));
    const filter = spillwayInputFilter({ tokens: 2000 });
    const build = tool({
      name: 'build',
      description: 'Runs the build',
      parameters: z.object({}),
      execute: async () => AGENT_LOG.text,
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
    expect(result.finalOutput).toBe(AGENT_ANSWER);
    const requests = model.seen
      .filter((r) => r.method === 'POST')
      .map((r) => (r.json as { input: unknown[] }).input);
    expectBuildAndRecall(requests, 2000);
  });
});
