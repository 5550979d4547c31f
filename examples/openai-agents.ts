/**
 * spillway in an OpenAI Agents SDK agent: a build that prints 650 KB, its error kept within
 * 2,000 tokens, the whole recallable by the model through spillway_expand.
 *
 *   OPENAI_API_KEY=... npx tsx examples/openai-agents.ts   (OPENAI_BASE_URL for another endpoint)
 */
import { Agent, run, setTracingDisabled, tool } from '@openai/agents';
import { spillwayExpandTool, spillwayInputFilter } from 'spillway/openai-agents';
import { z } from 'zod';
import { buildOutput } from './build-output.js';

setTracingDisabled(true);
const filter = spillwayInputFilter({ tokens: 2000 });
const build = tool({
  name: 'build',
  description: 'Runs the build and returns its output',
  parameters: z.object({}),
  execute: async () => buildOutput(),
});
const agent = new Agent({
  name: 'builder',
  model: 'gpt-5',
  instructions: 'Run the build and say in one sentence why it fails.',
  tools: [build, spillwayExpandTool(filter.store)],
});
const result = await run(agent, 'Why does the build fail?', { callModelInputFilter: filter, stream: true });
for await (const text of result.toTextStream()) process.stdout.write(text);
process.stdout.write('\n');
