import type { ModelMessage } from 'ai';
import { resolveEngineConfig } from '../engine/config.js';
import { type ProxyOptions, type RunningProxy, startProxy } from '../proxy/index.js';
import { MemoryStore } from '../store/backends/memory-store.js';
import { markerIds } from '../text/index.js';
import { type ModelStep, type ModelTurn, type ScriptedModel, startScriptedModel } from './scripted-model.js';

/** The error line a long build log hides in its middle, past what a collapse keeps of its text. */
export const BUILD_ERROR = 'ERROR: ld returned 1: undefined reference to `frobnicate_widget`';

/** A build log of 3000 lines with {@link BUILD_ERROR} at line 1999. */
export const BUILD_LOG = Array.from({ length: 3000 }, (_, i) =>
  i === 1998 ? BUILD_ERROR : `[${String(i + 1).padStart(4, '0')}/3000] compiling src/module_${i}.c`,
).join('\n');

/** The final answer the scripted model gives once it has read the recalled line. */
export const finalAnswer = (line: string) => `The build fails: ${line}`;

/**
 * A model that recalls the collapsed build log through `spillway_expand` (greps it for ERROR)
 * and answers with the line it got back; without the tool, or without a marker, it says so.
 *
 * @example
 * const model = await startScriptedModel(recallingModel);
 */
export function recallingModel(turn: ModelTurn): ModelStep {
  const out = turn.lastOutput;
  if (!out) return { kind: 'answer', text: 'nothing to read' };
  if (out.callId.startsWith('recall_')) {
    const line = out.text.split('\n').find((l) => l.includes('ERROR:')) ?? 'no error line came back';
    return { kind: 'answer', text: finalAnswer(line.replace(/^\d+:\s*/, '')) };
  }
  const id = markerIds(out.text)[0];
  if (!id || !turn.tools.includes('spillway_expand'))
    return { kind: 'answer', text: 'the log was not shortened' };
  return { kind: 'call', callId: 'recall_1', name: 'spillway_expand', input: { id, grep: 'ERROR' } };
}

type Api = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini';

/**
 * A conversation that ran `make` and got the long build log back, as each API's client sends it.
 *
 * @example
 * const { path, body } = buildConversation('anthropic', true);
 */
export function buildConversation(
  api: Api,
  stream: boolean,
): { path: string; body: Record<string, unknown> } {
  const ask = 'Why does the build fail?';
  if (api === 'anthropic')
    return {
      path: '/v1/messages',
      body: {
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        stream,
        tools: [
          { name: 'bash', description: 'Runs a command', input_schema: { type: 'object', properties: {} } },
        ],
        messages: [
          { role: 'user', content: ask },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: BUILD_LOG }] },
        ],
      },
    };
  if (api === 'openai-chat')
    return {
      path: '/v1/chat/completions',
      body: {
        model: 'gpt-4o',
        stream,
        ...(stream ? { stream_options: { include_usage: true } } : {}),
        tools: [
          { type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: {} } } },
        ],
        messages: [
          { role: 'user', content: ask },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: BUILD_LOG },
        ],
      },
    };
  if (api === 'openai-responses')
    return {
      path: '/v1/responses',
      body: {
        model: 'gpt-5',
        stream,
        tools: [{ type: 'function', name: 'bash', parameters: { type: 'object', properties: {} } }],
        input: [
          { role: 'user', content: ask },
          { type: 'function_call', call_id: 'call_1', name: 'bash', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_1', output: BUILD_LOG },
        ],
      },
    };
  return {
    path: `/v1beta/models/gemini-2.5-pro:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    body: {
      tools: [{ functionDeclarations: [{ name: 'bash', parameters: { type: 'object', properties: {} } }] }],
      contents: [
        { role: 'user', parts: [{ text: ask }] },
        { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'bash', args: {} } }] },
        {
          role: 'user',
          parts: [{ functionResponse: { id: 'c1', name: 'bash', response: { output: BUILD_LOG } } }],
        },
      ],
    },
  };
}

/**
 * A scripted model and a proxy in front of it (every API's upstream), for recall tests.
 *
 * @example
 * const { model, proxy, close } = await recallProxy(recallingModel);
 */
export async function recallProxy(
  script: (turn: ModelTurn) => ModelStep,
  options: Partial<ProxyOptions> = {},
): Promise<{ model: ScriptedModel; proxy: RunningProxy; close: () => Promise<void> }> {
  const model = await startScriptedModel(script);
  const proxy = await startProxy({
    config: resolveEngineConfig({ preset: 'balanced' }),
    store: new MemoryStore({ maxTotalBytes: 1 << 28, maxSessionBytes: 1 << 28 }),
    port: 0,
    upstreams: { anthropic: model.url, openai: model.url, gemini: model.url },
    log: () => {},
    ...options,
  });
  return {
    model,
    proxy,
    close: async () => {
      await proxy.close();
      await model.close();
    },
  };
}

/** The conversation of {@link buildConversation} as the AI SDK's messages. */
export const aiSdkConversation: ModelMessage[] = [
  { role: 'user', content: 'Why does the build fail?' },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'bash', input: {} }] },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'bash',
        output: { type: 'text', value: BUILD_LOG },
      },
    ],
  },
];
