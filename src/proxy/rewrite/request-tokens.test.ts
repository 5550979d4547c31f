import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getTokenizer } from '../../text/tokenizers/index.js';
import { RequestTokens } from './request-tokens.js';

const message = fc.oneof(
  fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.string({ maxLength: 40 }) }),
  fc.record({
    role: fc.constant('user'),
    content: fc.array(
      fc.record({
        type: fc.constant('tool_result'),
        tool_use_id: fc.stringMatching(/^t[0-9]{1,3}$/),
        content: fc.string({ maxLength: 200 }),
      }),
      { maxLength: 2 },
    ),
  }),
);

// One turn of a conversation: the messages of the last body and maybe some new ones, in a body
// whose other fields may change, or one earlier message rewritten (a batch masked in the prefix).
const turn = fc.record({
  added: fc.array(message, { maxLength: 3 }),
  system: fc.constantFrom('s', 's', 'changed'),
  rewrite: fc.option(fc.nat(), { nil: undefined }),
  spacing: fc.constantFrom(0, 0, 1),
  trailing: fc.constantFrom('', '', ',"tools":[]', ',"messages":[]'),
  // The guard's cap on any one message (none, or one that long messages pass).
  cap: fc.constantFrom(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, 4, 30),
});

describe('RequestTokens', () => {
  const tokenizer = getTokenizer('o200k');

  it('counts a body the same whether it reads on from the last body of its conversation or counts it whole', () => {
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 6 }), (turns) => {
        const resuming = new RequestTokens(tokenizer);
        const conversation = {};
        const messages: unknown[] = [];
        for (const t of turns) {
          messages.push(...t.added);
          if (t.rewrite !== undefined && messages.length > 0)
            messages[t.rewrite % messages.length] = { role: 'user', content: '[masked]' };
          const json = JSON.stringify({ model: 'm', system: t.system, messages }, null, t.spacing);
          const body = Buffer.from(`${json.slice(0, -1)}${t.trailing}}`);
          const whole = new RequestTokens(tokenizer).count('anthropic', body, undefined, t.cap);
          expect(resuming.count('anthropic', body, conversation, t.cap)).toBe(whole);
          // The same body again (counted after the answer, for calibration): the same count.
          expect(resuming.count('anthropic', body, conversation, t.cap)).toBe(whole);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('counts a message past the cap as the cap + 1, decoding and reading only a prefix of it', () => {
    const reads: { length: number; limit: number }[] = [];
    const watched = {
      ...tokenizer,
      count: (text: string) => {
        if (text.length > 1000) reads.push({ length: text.length, limit: Number.POSITIVE_INFINITY });
        return tokenizer.count(text);
      },
      countUpTo: (text: string, limit: number) => {
        if (text.length > 1000) reads.push({ length: text.length, limit });
        return tokenizer.countUpTo(text, limit);
      },
    };
    const huge = {
      role: 'user',
      content: Array.from({ length: 5000 }, (_, i) => `line ${i} of the log`).join('\n'),
    };
    const messages = [{ role: 'user', content: 'run it' }, huge, { role: 'assistant', content: 'done' }];
    const body = Buffer.from(JSON.stringify({ model: 'm', messages }));
    const exact = new RequestTokens(tokenizer).count('anthropic', body);
    const hugeTokens = tokenizer.count(JSON.stringify(huge));
    expect(hugeTokens).toBeGreaterThan(1000);
    expect(new RequestTokens(watched).count('anthropic', body, {}, 1000)).toBe(exact - hugeTokens + 1001);
    // One read, under the cap, of a prefix a tenth of the message's length.
    expect(reads).toHaveLength(1);
    expect(reads[0]?.limit).toBe(1000);
    expect(reads[0]?.length).toBeLessThan(JSON.stringify(huge).length / 10);
  });
});
