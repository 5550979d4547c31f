import type { ProviderExamples } from '../provider-spec.js';

/** Codex's shape: a function_call item and its output; `response.completed` reports the usage. */
export const EXAMPLES: ProviderExamples = {
  request: {
    path: '/v1/responses',
    headers: { authorization: 'Bearer sk-example', originator: 'codex_cli_rs' },
    body: {
      model: 'gpt-5',
      instructions: 'You are Codex.',
      prompt_cache_key: '0199a1b2-thread',
      max_output_tokens: 16000,
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'run the tests' }] },
        {
          type: 'function_call',
          call_id: 'call_1',
          name: 'shell',
          arguments: '{"command":["npm","test"]}',
        },
        {
          type: 'function_call_output',
          call_id: 'call_1',
          output: 'PASS  src/a.test.ts\nFAIL  src/b.test.ts',
        },
      ],
      tools: [{ type: 'function', name: 'shell', parameters: { type: 'object' } }],
      stream: true,
    },
  },
  answer: {
    body: {
      type: 'response.completed',
      sequence_number: 12,
      response: {
        id: 'resp_1',
        object: 'response',
        status: 'completed',
        usage: {
          input_tokens: 5000,
          input_tokens_details: { cached_tokens: 4608 },
          output_tokens: 30,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 5030,
        },
      },
    },
    usage: { input: 392, cacheRead: 4608, cacheWrite: 0 },
  },
};
