import { ChatAnthropic } from '@langchain/anthropic';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AGENT_ANSWER,
  AGENT_LOG,
  buildAndRecall,
  expectBuildAndRecall,
  scriptedModelPerTest,
} from '../test-support/agent-loop.js';
import { spillwayExpandTool, spillwayMiddleware, spillwayPreModelHook } from './langchain.js';

const models = scriptedModelPerTest();

/** The agent's build tool (a 650 KB log) and its model, at the scripted model's URL. */
const agentParts = (url: string) => ({
  build: tool(async () => AGENT_LOG.text, {
    name: 'build',
    description: 'Runs the build',
    schema: z.object({}),
  }),
  llm: new ChatAnthropic({
    model: 'claude-sonnet-4-5',
    apiKey: 'sk-ant-test',
    anthropicApiUrl: url,
    maxRetries: 0,
  }),
});

describe("LangGraph's createReactAgent with the pre-model hook (@langchain/anthropic against a scripted model)", () => {
  it('the error of a 650 KB build log reaches the model within budget, recall returns it, the prefix holds; the state keeps the whole', async () => {
    const model = await models.start(buildAndRecall('toolu_'));
    const hook = spillwayPreModelHook({ tokens: 2000 });
    const { build, llm } = agentParts(model.url);
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

describe("LangChain v1's createAgent with spillway's middleware (@langchain/anthropic against a scripted model)", () => {
  it('the error of a 650 KB build log reaches the model within budget, the middleware brings the recall tool and recall returns it, the prefix holds; the state keeps the whole', async () => {
    const model = await models.start(buildAndRecall('toolu_'));
    const { build, llm } = agentParts(model.url);
    // The agent lists only its own tool: spillway_expand comes with the middleware.
    const agent = createAgent({
      model: llm,
      tools: [build],
      middleware: [spillwayMiddleware({ tokens: 2000 })],
    });
    const state = await agent.invoke({
      messages: [{ role: 'user', content: 'Build the project and fix it.' }],
    });
    expect(String(state.messages.at(-1)?.content)).toBe(AGENT_ANSWER);
    expect(state.messages.some((m) => m.content === AGENT_LOG.text)).toBe(true);
    const sent = model.seen.filter((r) => r.url.startsWith('/v1/messages'));
    const tools = ((sent[0]?.json as { tools?: { name: string }[] } | undefined)?.tools ?? []).map(
      (t) => t.name,
    );
    expect(tools).toEqual(expect.arrayContaining(['build', 'spillway_expand']));
    expectBuildAndRecall(
      sent.map((r) => (r.json as { messages: unknown[] }).messages),
      2000,
    );
  });
});
