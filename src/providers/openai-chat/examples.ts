import type { ProviderExamples } from '../provider-spec.js';

/** A function call and its `role: "tool"` answer; the stream's last chunk reports the usage. */
export const EXAMPLES: ProviderExamples = {
  request: {
    path: '/v1/chat/completions',
    headers: { authorization: 'Bearer sk-example' },
    body: {
      model: 'gpt-4.1',
      max_completion_tokens: 4096,
      messages: [
        { role: 'system', content: 'You are a coding agent.' },
        { role: 'user', content: 'run the tests' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'shell', arguments: '{"command":"npm test"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'PASS  src/a.test.ts\nFAIL  src/b.test.ts' },
      ],
      tools: [{ type: 'function', function: { name: 'shell', parameters: { type: 'object' } } }],
      stream: true,
      stream_options: { include_usage: true },
    },
  },
  answer: {
    body: {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1765000000,
      model: 'gpt-4.1-2025-04-14',
      choices: [],
      usage: {
        prompt_tokens: 4000,
        completion_tokens: 20,
        total_tokens: 4020,
        prompt_tokens_details: { cached_tokens: 3840, audio_tokens: 0 },
      },
    },
    usage: { input: 160, cacheRead: 3840, cacheWrite: 0 },
  },
};
