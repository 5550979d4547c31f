/**
 * spillway in a LangGraph agent: a build that prints 650 KB, its error kept within 2,000
 * tokens in what the model is sent, the whole in the graph's state and recallable by the model.
 *
 *   ANTHROPIC_API_KEY=... npx tsx examples/langchain.ts   (ANTHROPIC_API_URL for another endpoint)
 */
import { ChatAnthropic } from '@langchain/anthropic';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { spillwayExpandTool, spillwayPreModelHook } from 'spillway/langchain';
import { z } from 'zod';
import { buildOutput } from './build-output.js';

const hook = spillwayPreModelHook({ tokens: 2000 });
const build = tool(async () => buildOutput(), {
  name: 'build',
  description: 'Runs the build and returns its output',
  schema: z.object({}),
});
const agent = createReactAgent({
  llm: new ChatAnthropic({ model: 'claude-sonnet-4-5' }),
  tools: [build, spillwayExpandTool(hook.store)],
  preModelHook: hook,
});
const state = await agent.invoke({
  messages: [{ role: 'user', content: 'Run the build and say in one sentence why it fails.' }],
});
console.log(String(state.messages.at(-1)?.content));
