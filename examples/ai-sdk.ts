/**
 * spillway in a Vercel AI SDK agent: a build that prints 650 KB, its error kept within 2,000
 * tokens, the whole recallable by the model through spillway_expand.
 *
 *   OPENAI_API_KEY=... npx tsx examples/ai-sdk.ts
 *   ANTHROPIC_API_KEY=... npx tsx examples/ai-sdk.ts anthropic
 *
 * (OPENAI_BASE_URL / ANTHROPIC_BASE_URL point it at any compatible endpoint.)
 */
import { anthropic } from '@ai-sdk/anthropic';
import { openai } from '@ai-sdk/openai';
import { stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { spillway, spillwayExpand } from 'spillway/ai-sdk';
import { z } from 'zod';
import { buildOutput } from './build-output.js';

const sw = spillway({ tokens: 2000 });
const model = wrapLanguageModel({
  model: process.argv[2] === 'anthropic' ? anthropic('claude-sonnet-4-5') : openai('gpt-5'),
  middleware: sw,
});

const build = tool({
  description: 'Runs the build and returns its output',
  inputSchema: z.object({}),
  execute: async () => buildOutput(),
});

const result = streamText({
  model,
  tools: { build, spillway_expand: spillwayExpand(sw.store) },
  stopWhen: stepCountIs(6),
  prompt: 'Run the build and tell me in one sentence why it fails.',
});
for await (const text of result.textStream) process.stdout.write(text);
process.stdout.write('\n');
