import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedLibrary } from '../../test-support/client-install.js';
import {
  aiSdkConversation,
  BUILD_ERROR,
  BUILD_LOG,
  buildConversation,
  finalAnswer,
  recallingModel,
  recallProxy,
} from '../../test-support/recall-fixture.js';
import type { ScriptedModel } from '../../test-support/scripted-model.js';
import type { RunningProxy } from '../server.js';

// Agents built on plain SDKs, pointed at the proxy: none of them has spillway_expand. Without
// the proxy answering it, the AI SDK throws "Model tried to call unavailable tool" and LangChain
// answers "spillway_expand is not a valid tool".

let model: ScriptedModel;
let proxy: RunningProxy;
let close = async () => {};

beforeAll(async () => {
  ({ model, proxy, close } = await recallProxy(recallingModel));
});
afterAll(() => close());

const FINAL = finalAnswer(BUILD_ERROR);
const ASK = 'Why does the build fail?';

/** The model got the recalled line (in its second round), and was offered the tool in its first. */
function expectRecalled(from: number): void {
  const rounds = model.seen.slice(from);
  expect(rounds).toHaveLength(2);
  expect(rounds[0]?.body.toString()).toContain('"spillway_expand"');
  expect(JSON.stringify(rounds[1]?.json)).toContain('frobnicate_widget');
}

const bash = tool({
  description: 'Runs a shell command',
  inputSchema: jsonSchema<{ command?: string }>({
    type: 'object',
    properties: { command: { type: 'string' } },
  }),
  execute: async () => 'not run in this test',
});

describe('the AI SDK (ai) through the proxy', () => {
  const anthropic = () => createAnthropic({ baseURL: `${proxy.url}/v1`, apiKey: 'k' })('claude-sonnet-4-5');
  const openai = () => createOpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'k' });
  const models = {
    'Anthropic Messages': anthropic,
    'OpenAI Chat': () => openai().chat('gpt-4o'),
    'OpenAI Responses': () => openai().responses('gpt-5'),
  };
  for (const [name, make] of Object.entries(models)) {
    it(`${name}: generateText gets the final answer`, async () => {
      const from = model.seen.length;
      const result = await generateText({
        model: make(),
        tools: { bash },
        messages: aiSdkConversation,
        headers: { 'x-spillway-session': `ai-g-${name}` },
      });
      expect(result.text).toBe(FINAL);
      expect(result.toolCalls).toEqual([]);
      expectRecalled(from);
    });
    it(`${name}: streamText streams the final answer`, async () => {
      const from = model.seen.length;
      const result = streamText({
        model: make(),
        tools: { bash },
        messages: aiSdkConversation,
        headers: { 'x-spillway-session': `ai-s-${name}` },
      });
      expect(await result.text).toBe(FINAL);
      expect(await result.toolCalls).toEqual([]);
      expectRecalled(from);
    });
  }
});

describe('LangChain (@langchain/anthropic) through the proxy', () => {
  it('a tool-bound ChatAnthropic gets the final answer, invoked and streamed', async () => {
    const chat = new ChatAnthropic({
      model: 'claude-sonnet-4-5',
      apiKey: 'k',
      anthropicApiUrl: proxy.url,
    }).bindTools([
      { name: 'bash', description: 'Runs a shell command', schema: { type: 'object', properties: {} } },
    ]);
    const messages = [
      new HumanMessage(ASK),
      new AIMessage({ content: '', tool_calls: [{ id: 'toolu_1', name: 'bash', args: {} }] }),
      new ToolMessage({ content: BUILD_LOG, tool_call_id: 'toolu_1' }),
    ];
    let from = model.seen.length;
    const answer = await chat.invoke(messages);
    expect(answer.content).toBe(FINAL);
    expect(answer.tool_calls).toEqual([]);
    expectRecalled(from);
    from = model.seen.length;
    let streamed = '';
    for await (const chunk of await chat.stream(messages)) streamed += chunk.text;
    expect(streamed).toBe(FINAL);
    expectRecalled(from);
  });
});

const anthropicSdk = await pinnedLibrary('@anthropic-ai/sdk');
const openaiSdk = await pinnedLibrary('openai');
// biome-ignore lint/suspicious/noExplicitAny: the SDKs load at run time from the cache, without their types
type Sdk = any;
const skipped = (lib: typeof anthropicSdk, name: string) =>
  'missing' in lib ? `${name} (skipped: ${lib.missing})` : name;

describe('the official SDKs through the proxy', () => {
  it.skipIf('missing' in anthropicSdk)(
    skipped(anthropicSdk, '@anthropic-ai/sdk: create and stream get the final answer, both rounds counted'),
    async () => {
      const Anthropic = (anthropicSdk as { module: Record<string, Sdk> }).module.default;
      const client = new Anthropic({ apiKey: 'k', baseURL: proxy.url });
      // The client's own request, without its `stream` (the SDK sets it).
      const { stream: _a, ...body } = buildConversation('anthropic', false).body;
      let from = model.seen.length;
      const message = await client.messages.create(body);
      expect(message.content).toEqual([{ type: 'text', text: FINAL }]);
      expect(message.usage).toMatchObject({ input_tokens: 200, output_tokens: 20 });
      expectRecalled(from);
      from = model.seen.length;
      const streamed = await client.messages.stream(body).finalMessage();
      expect(streamed.content).toEqual([{ type: 'text', text: FINAL }]);
      expect(streamed.usage).toMatchObject({ input_tokens: 200, output_tokens: 20 });
      expectRecalled(from);
    },
  );

  it.skipIf('missing' in openaiSdk)(
    skipped(openaiSdk, 'openai: Chat and Responses, streamed and not, get the final answer'),
    async () => {
      const OpenAI = (openaiSdk as { module: Record<string, Sdk> }).module.default;
      const client = new OpenAI({ apiKey: 'k', baseURL: `${proxy.url}/v1` });
      const { stream: _c, ...chat } = buildConversation('openai-chat', false).body;
      let from = model.seen.length;
      const completion = await client.chat.completions.create(chat);
      expect(completion.choices[0].message.content).toBe(FINAL);
      expect(completion.usage.prompt_tokens).toBe(200);
      expectRecalled(from);
      from = model.seen.length;
      const stream = client.chat.completions.stream({ ...chat, stream_options: { include_usage: true } });
      const final = await stream.finalChatCompletion();
      expect(final.choices[0].message.content).toBe(FINAL);
      expectRecalled(from);
      const { stream: _r, ...responses } = buildConversation('openai-responses', false).body;
      from = model.seen.length;
      expect((await client.responses.create(responses)).output_text).toBe(FINAL);
      expectRecalled(from);
      from = model.seen.length;
      const response = await client.responses.stream(responses).finalResponse();
      expect(response.output_text).toBe(FINAL);
      expect(response.usage.input_tokens).toBe(200);
      expectRecalled(from);
    },
  );
});
