import { describe, expect, it } from 'vitest';
import { askedTerms, queryTerms, relevantLines, saidTerms } from './relevance.js';

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

  it('takes from what was said only the names of code: identifiers, backticked words, file stems', () => {
    expect(saidTerms('Why does `charge` fail in test_payments.py? See PaymentService and E0308.')).toEqual([
      'charge',
      'test_payments',
      'paymentservice',
      'e0308',
    ]);
    // Prose names nothing an output's line can be told by.
    expect(saidTerms('Please run the failing tests again and tell me what broke.')).toEqual([]);
    expect(saidTerms(undefined)).toEqual([]);
    expect(saidTerms('a_1 b_2 c_3 d_4 e_5 f_6 g_7 h_8'.replace(/_/g, '_x'))).toHaveLength(6);
    // The call's own terms come first.
    expect(askedTerms({ command: 'pytest tests/test_cart.py' }, 'fix test_total')).toEqual([
      'test_cart',
      'test_total',
    ]);
  });
});
