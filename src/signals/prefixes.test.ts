import { describe, expect, it } from 'vitest';
import { collapseText } from '../collapse/index.js';
import { MemoryStore } from '../store/backends/memory-store.js';
import { stashId } from '../text/content-hash.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { lineSignal } from './classify.js';
import { messagesOf, PREFIX_RULES } from './prefixes.js';
import { scanLines } from './scan-lines.js';

describe('prefix rules', () => {
  for (const rule of PREFIX_RULES)
    it(`${rule.id}: takes its prefix off each example, leaving the message`, () => {
      for (const [line, message] of rule.examples) {
        expect(rule.pattern.test(line), line).toBe(true);
        expect([...messagesOf(line)], line).toContain(message);
        // A line whose message matters matters, whatever stands before it.
        if (lineSignal(message)) expect(lineSignal(line), line).toBeDefined();
      }
    });

  it('takes off prefixes stacked on each other and colour codes anywhere', () => {
    const line = '2023-03-02T10:11:12.3456789Z [INFO] web-1  | \x1b[31m--- FAIL:\x1b[0m TestCharge (0.00s)';
    expect([...messagesOf(line)].at(-1)).toBe('--- FAIL: TestCharge (0.00s)');
    expect(lineSignal(line)?.id).toBe('go/test-fail');
    expect([...messagesOf('plain line')]).toEqual([]);
  });
});

describe('a collapse of a log whose every line has a prefix', () => {
  it('keeps the lines that matter byte for byte, prefix and all', async () => {
    const at = (i: number) =>
      `2023-03-02T10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${String(
        i * 7919,
      )
        .padStart(7, '0')
        .slice(0, 7)}Z`;
    const words = ['cart', 'order', 'payment', 'shipping', 'invoice', 'refund', 'stock'];
    const lines = Array.from(
      { length: 4000 },
      (_, i) => `${at(i)} === RUN   Test${words[i % 7]}${words[Math.floor(i / 7) % 7]}/case_${i}`,
    );
    const failures = [
      `${at(2001)} --- FAIL: TestPaymentRefund (0.02s)`,
      `${at(2002)}     refund_test.go:88: refund of 12.50 = 0, want 12.50`,
      `${at(2003)} \x1b[31mpanic: runtime error: invalid memory address or nil pointer dereference\x1b[0m`,
    ];
    lines.splice(2001, 0, ...failures);
    const text = lines.join('\n');
    const store = new MemoryStore();
    const out = await collapseText(
      text,
      { budget: 1000 },
      {
        tokenizer: getTokenizer('o200k'),
        id: () => stashId(text),
        stash: async () => store.putIfAbsent({ dir: 'pruned', name: stashId(text) }, Buffer.from(text)),
      },
    );
    expect(out.action).toBe('acted');
    const kept = out.action === 'acted' ? out.text.split('\n') : [];
    for (const line of failures) expect(kept).toContain(line);
    // Named by the rules for what they are, not only found as lines that stand out.
    const kinds = scanLines(text).important.filter((l) => l.line >= 2001 && l.line <= 2003);
    // The colour code does not hide go's panic rule from the panic (core's error word would do).
    expect(kinds.map((l) => l.kind)).toEqual(['failure', 'diagnostic', 'exception']);
  });
});
