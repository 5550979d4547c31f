import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MemoryStore } from '../store/backends/memory-store.js';
import {
  AGENT_ANSWER,
  AGENT_LOG,
  buildAndRecall,
  expectBuildAndRecall,
  scriptedModelPerTest,
} from '../test-support/agent-loop.js';
import { spillway, spillwayExpand } from './ai-sdk.js';

const models = scriptedModelPerTest();

describe('the AI SDK middleware (ai 6, real providers against a scripted model)', () => {
  for (const provider of ['openai', 'anthropic'] as const)
    it(`${provider}: the error of a 650 KB build log reaches the model within budget, recall returns it, the prefix holds`, async () => {
      const model = await models.start(buildAndRecall(provider === 'openai' ? 'call_' : 'toolu_'));
      const sw = spillway({ tokens: 2000, store: new MemoryStore() });
      const base =
        provider === 'openai'
          ? createOpenAI({ baseURL: `${model.url}/v1`, apiKey: 'sk-test' })('gpt-5')
          : createAnthropic({ baseURL: `${model.url}/v1`, apiKey: 'sk-ant-test' })('claude-sonnet-4-5');
      const tools = {
        build: {
          description: 'Runs the build',
          inputSchema: z.object({}),
          execute: async () => AGENT_LOG.text,
        },
        spillway_expand: spillwayExpand(sw.store),
      };
      const call = {
        model: wrapLanguageModel({ model: base, middleware: sw }),
        tools,
        stopWhen: stepCountIs(5),
        prompt: 'Build the project and fix it.',
      };
      // Both tool loops: streaming over the Responses API, generating over Messages.
      const text = provider === 'openai' ? await streamText(call).text : (await generateText(call)).text;
      expect(text).toBe(AGENT_ANSWER);
      const requests = model.seen
        .filter((r) => r.method === 'POST')
        .map((r) => {
          const body = r.json as { input?: unknown[]; messages?: unknown[] };
          return body.input ?? body.messages ?? [];
        });
      expectBuildAndRecall(requests, 2000);
    });
});
