import { describe, expect, it } from 'vitest';
import { queryTerms, relevantLines } from './relevance.js';

describe('relevance to the call', () => {
  it('takes the terms a call asks about from its arguments, without a shell and a path common words', () => {
    expect(queryTerms({ command: 'pytest tests/test_cart.py::test_total -x' })).toEqual([
      'test_cart',
      'test_total',
    ]);
    expect(queryTerms({ pattern: 'refundOrder', path: 'src/' })).toEqual(['refundorder']);
    expect(queryTerms({ file_path: '/srv/shop/payments/ledger.py' })).toEqual([
      'srv',
      'shop',
      'payments',
      'ledger',
    ]);
    expect(queryTerms({ cmd: ['bash', '-lc', 'cargo test charge_refund -- --nocapture'] })).toEqual([
      'charge_refund',
      'nocapture',
    ]);
    expect(queryTerms(undefined)).toEqual([]);
    expect(queryTerms({ command: 'ls -la' })).toEqual([]);
  });

  it('scores the lines that name rare terms, leaves out terms most lines carry', () => {
    const lines = Array.from({ length: 500 }, (_, i) => `debug: worker ${i} polled the payments queue`);
    lines[137] = 'charge_refund: refunding order 7731 twice, ledger balance -12.50';
    lines[301] = 'test payments::charge_refund ... ok';
    const text = lines.join('\n');
    const found = relevantLines(text, 500, ['charge_refund', 'payments']);
    // "payments" is on every line: it says nothing; charge_refund picks its two lines.
    expect(found.map((f) => f.line)).toEqual([137, 301]);
    expect(text.slice(found[0]?.start, found[0]?.end)).toBe(lines[137]);
    expect(relevantLines(text, 500, [])).toEqual([]);
  });
});
