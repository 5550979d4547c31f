import type { ProviderExamples } from '../provider-spec.js';

/** Claude Code's shape: a Bash call and its result, `cache_control` on the last block. */
export const EXAMPLES: ProviderExamples = {
  request: {
    path: '/v1/messages',
    headers: { 'anthropic-version': '2023-06-01', 'x-api-key': 'sk-ant-example' },
    body: {
      model: 'claude-sonnet-4-5',
      max_tokens: 32000,
      system: [{ type: 'text', text: 'You are Claude Code.' }],
      metadata: { user_id: 'user_ab_account_cd_session_0f3e9a' },
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'run the tests' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Running them.' },
            { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'npm test' } },
          ],
        },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'toolu_01',
              content: 'PASS  src/a.test.ts\nFAIL  src/b.test.ts\n  expected 1, got 2',
              is_error: true,
              cache_control: { type: 'ephemeral' },
            },
          ],
        },
      ],
      tools: [{ name: 'Bash', description: 'Runs a command', input_schema: { type: 'object' } }],
      stream: true,
    },
  },
  answer: {
    body: {
      type: 'message_start',
      message: {
        id: 'msg_01',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5-20250929',
        content: [],
        stop_reason: null,
        usage: {
          input_tokens: 12,
          cache_creation_input_tokens: 300,
          cache_read_input_tokens: 9000,
          output_tokens: 1,
        },
      },
    },
    usage: { input: 12, cacheRead: 9000, cacheWrite: 300 },
  },
};
