/**
 * spillway in a LangChain v1 agent: a build that prints 650 KB, its error kept within 2,000
 * tokens in what the model is sent, the whole in the agent's state and recallable by the model
 * (the middleware brings the spillway_expand tool).
 *
 *   ANTHROPIC_API_KEY=... npx tsx examples/langchain.ts   (ANTHROPIC_API_URL for another endpoint)
 *
 * LangGraph's createReactAgent takes `spillwayPreModelHook` and `spillwayExpandTool` instead
 * (docs/library.md).
 */
import { ChatAnthropic } from '@langchain/anthropic';
import { tool } from '@langchain/core/tools';
import { createAgent } from 'langchain';
import { spillwayMiddleware } from 'spillway/langchain';
import { z } from 'zod';
import { buildOutput } from './build-output.js';

const build = tool(async () => buildOutput(), {
  name: 'build',
  description: 'Runs the build and returns its output',
  schema: z.object({}),
});
const agent = createAgent({
  model: new ChatAnthropic({ model: 'claude-sonnet-4-5' }),
  tools: [build],
  middleware: [spillwayMiddleware({ tokens: 2000 })],
});
const state = await agent.invoke({
  messages: [{ role: 'user', content: 'Run the build and say in one sentence why it fails.' }],
});
console.log(String(state.messages.at(-1)?.content));
