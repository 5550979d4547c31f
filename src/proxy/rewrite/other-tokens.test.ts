import { describe, expect, it } from 'vitest';
import { anthropicAdapter } from '../../providers/index.js';
import { otherTokensFrom } from './other-tokens.js';

describe('otherTokensFrom', () => {
  it('counts none of a tool result as other tokens, its JSON escapes included', () => {
    const log = Array.from({ length: 3000 }, (_, i) => `line ${i}\t"quoted" path\\to\\file`).join('\n');
    const body = {
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'user', content: 'Run the build.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'make' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: log }] },
      ],
    };
    const raw = Buffer.from(JSON.stringify(body));
    const results = anthropicAdapter.view(body)?.results ?? [];
    expect(results).toHaveLength(1);
    const from = otherTokensFrom('anthropic', raw, results);
    // The third message is its result and the 88 bytes of JSON around it (22 tokens).
    expect(from(2)).toBeLessThan(30);
    // Messages before it are counted as they stand.
    expect(from(0) - from(2)).toBeGreaterThan(20);
    expect(from(0) - from(2)).toBeLessThan(60);
  });
});
