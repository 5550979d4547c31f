import { ChatAnthropic } from '@langchain/anthropic';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AGENT_ANSWER,
  AGENT_LOG,
  buildAndRecall,
  expectBuildAndRecall,
  scriptedModelPerTest,
} from '../test-support/agent-loop.js';
import { spillwayExpandTool, spillwayPreModelHook } from './langchain.js';

const models = scriptedModelPerTest();

describe("LangGraph's createReactAgent with the pre-model hook (@langchain/anthropic against a scripted model)", () => {
  it('the error of a 650 KB build log reaches the model within budget, recall returns it, the prefix holds; the state keeps the whole', async () => {
    const model = await models.start(buildAndRecall('toolu_'));
    const hook = spillwayPreModelHook({ tokens: 2000 });
    const build = tool(async () => AGENT_LOG.text, {
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
    expect(String(state.messages.at(-1)?.content)).toBe(AGENT_ANSWER);
    // The graph's state still holds the build's whole output.
    expect(state.messages.some((m) => m.content === AGENT_LOG.text)).toBe(true);
    const requests = model.seen
      .filter((r) => r.url.startsWith('/v1/messages'))
      .map((r) => (r.json as { messages: unknown[] }).messages);
    expectBuildAndRecall(requests, 2000);
  });
});
