import { describe, expect, it } from 'vitest';
import type { ImportantLine } from '../signals/index.js';
import { jsonRecords, keyValueLog, podTable } from '../test-support/rare-fixtures.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { selectLines } from './lines.js';
import { readOrder } from './rank.js';

const o200k = getTokenizer('o200k');

describe('collapse keeps what stands out, with no rule for it', () => {
  it('keeps the crash-looping pod, the degraded state and the odd JSON record with every format rule switched off', () => {
    for (const budget of [1000, 2000]) {
      for (const { text, needle } of [podTable(317), keyValueLog(2_871), jsonRecords(6_203)]) {
        const options = {
          budget: budget,
          headLines: 20,
          tailLines: 20,
          tokenizer: o200k,
          id: 'sw_0123456789abcdef',
        };
        const withoutRules = selectLines(text, { ...options, signals: { rules: false } });
        expect(withoutRules?.text, `${needle} at ${budget}`).toContain(needle);
        expect(withoutRules?.tokens).toBeLessThanOrEqual(budget);
        // And without rarity either, it is lost: rarity is what finds it.
        const neither = selectLines(text, { ...options, signals: { rules: false, rarity: false } });
        expect(neither?.text, `${needle} at ${budget}, no signal`).not.toContain(needle);
      }
    }
  });
});

describe('a block said twice', () => {
  it('ranks the second copy of each line after every first one, so both copies do not share the room', async () => {
    const { scanLines } = await import('../signals/index.js');
    const { LineIndex } = await import('./line-index.js');
    const { rankImportant } = await import('./rank.js');
    const block = [
      '=================================== FAILURES ===================================',
      'E       assert total([]) == 1',
      'tests/test_cart.py:12: AssertionError',
      'E       KeyError: "sku-1"',
      'tests/test_stock.py:40: KeyError',
    ];
    const text = [...block, 'collected again', ...block, 'RuntimeError: the payment worker stopped'].join(
      '\n',
    );
    const scan = scanLines(text);
    const ranked = rankImportant(text, new LineIndex(text, scan.lines), scan.important).map((f) => f.line);
    const firstCopy = [0, 1, 2, 3, 4];
    const secondCopy = [6, 7, 8, 9, 10];
    const lastFirst = Math.max(...firstCopy.map((l) => ranked.indexOf(l)), ranked.indexOf(11));
    for (const l of secondCopy) expect(ranked.indexOf(l), `line ${l}`).toBeGreaterThan(lastFirst);
  });
});

describe('head and tail', () => {
  it('grow by tokens: a tail of long prose lines does not take the budget from the head line by line', () => {
    const prose =
      'The migration rewrote the orders table in place, which took the primary offline for a while. ';
    const text = [
      // Head lines unlike each other (alike ones would be folded into a run).
      ...Array.from(
        { length: 400 },
        (_, i) =>
          `step ${['checked', 'copied', 'indexed', 'locked', 'moved', 'vacuumed', 'analysed'][i % 7]} ${['orders', 'users', 'carts', 'skus', 'payments'][i % 5]}`,
      ),
      ...Array.from(
        { length: 40 },
        (_, i) =>
          `${i}. ${prose
            .split(' ')
            .slice(i % 9)
            .join(' ')} ${prose.repeat(9)}`,
      ),
    ].join('\n');
    const out = selectLines(text, {
      budget: 2000,
      headLines: 20,
      tailLines: 20,
      tokenizer: o200k,
      id: 'sw_0123456789abcdef',
    });
    const shown = out?.text.split('\n') ?? [];
    const head = shown.filter((l) => l.startsWith('step ')).length;
    const headTokens = o200k.count(shown.filter((l) => l.startsWith('step ')).join('\n'));
    const tailTokens = o200k.count(shown.filter((l) => /^\d+\. /.test(l)).join('\n'));
    // About half the room each (the ratio is 20:20), not 20 head lines against 20 tail lines.
    expect(head).toBeGreaterThan(60);
    expect(headTokens / (headTokens + tailTokens)).toBeGreaterThan(0.35);
  });
});

describe('a listing of long lines', () => {
  it("shows every hit's title and URL before it drops any (36 search hits of ~930 characters)", () => {
    const words =
      'spillway keeps oversized tool results from flooding an agent context window and loses nothing doing it while the cache stays warm'.split(
        ' ',
      );
    const hits = Array.from(
      { length: 36 },
      (_, i) =>
        `${i + 1}. [Result ${i + 1}: ${words[i % words.length]} guide](https://example.com/docs/${i}) — ${Array.from({ length: 140 }, (_, k) => words[(i * 3 + k) % words.length]).join(' ')}`,
    );
    const shown = (budget: number) => {
      const out = selectLines(hits.join('\n'), {
        budget,
        headLines: 20,
        tailLines: 20,
        tokenizer: o200k,
        id: 'sw_0123456789abcdef',
      });
      expect(out?.tokens).toBeLessThanOrEqual(budget);
      expect(out?.tokens).toBeGreaterThan(budget * 0.75);
      return out?.text.split('\n') ?? [];
    };
    // Whole lines showed 7 and 13 of them, lines cut to 160 characters 10 and 25.
    for (const budget of [1000, 2000]) {
      const lines = shown(budget);
      hits.forEach((hit, i) => {
        const named = (/^[^)]*\)/.exec(hit) as RegExpExecArray)[0];
        expect(lines.some((l) => l.startsWith(named), `hit ${i + 1} at ${budget}`)).toBe(true);
      });
      const cut = lines.filter((l) => /^\d+\. \[Result/.test(l) && / …\(\+\d+ chars\)$/.test(l));
      expect(cut.length, 'the rest of each hit shortened with a mark').toBe(36);
    }
  });
});

describe('relevance to the call', () => {
  it('keeps the lines that name what the call asked for, which head, tail and rules would not', () => {
    const lines = Array.from(
      { length: 3000 },
      (_, i) =>
        `debug: worker ${i % 17} polled queue ${['payments', 'orders', 'stock'][i % 3]} in ${i % 40} ms`,
    );
    lines[1400] = 'charge_refund: refunding order 7731 twice, ledger balance -12.50';
    lines[1410] = 'test payments::charge_refund ... ok';
    const text = lines.join('\n');
    // Rarity would find these two as well: off here, so the test sees relevance alone.
    const options = {
      budget: 1000,
      headLines: 20,
      tailLines: 20,
      tokenizer: o200k,
      id: 'sw_0123456789abcdef',
      signals: { rarity: false },
    };
    const asked = selectLines(text, { ...options, query: ['charge_refund', 'nocapture'] });
    expect(asked?.text).toContain(lines[1400]);
    expect(asked?.text).toContain(lines[1410]);
    expect(asked?.reasons.get(1400)).toBe('relevant');
    expect(selectLines(text, options)?.text).not.toContain(lines[1400]);
  });
});

describe('a needle in the middle of 50 MB', () => {
  it('is kept, wherever it is (the middle of a long output is searched for errors, failures and exceptions)', async () => {
    const { collapseText } = await import('./text.js');
    const line = (i: number) =>
      `2026-12-02T09:00:${String(i % 60).padStart(2, '0')}Z INFO request ${i} served in ${i % 97} ms`;
    const count = Math.ceil((50 * 1024 * 1024) / line(500_000).length);
    for (const at of [0.5, 0.37]) {
      const needle = 'panic: runtime error: invalid memory address or nil pointer dereference';
      const lines = Array.from({ length: count }, (_, i) => line(i));
      lines[Math.floor(count * at)] = needle;
      const text = lines.join('\n');
      expect(text.length).toBeGreaterThan(50 * 1024 * 1024);
      const out = await collapseText(
        text,
        { budget: 2000 },
        { tokenizer: o200k, id: () => 'sw_0123456789abcdef', stash: async () => {} },
      );
      expect(out.action === 'acted' && out.text.includes(needle), `at ${at}`).toBe(true);
    }
  });
});

describe('a file read over its budget', () => {
  it('shows its outline (the definitions through the file), not only its two ends', () => {
    // Bodies whose lines differ (alike lines would be folded, and the growth would reach the
    // definitions past them anyway).
    const words = ['parse', 'load', 'check', 'apply', 'merge', 'store', 'send', 'log'];
    const file = Array.from({ length: 60 }, (_, f) => [
      `export function step${f}(input: Order): Order {`,
      ...Array.from(
        { length: 48 },
        (_, k) =>
          `  const ${words[k % 8]}${k} = ${words[(k * 3 + f) % 8]}(input.${words[(k + f) % 8]}, ${k}) ?? ${words[(k * 5) % 8]}Default;`,
      ),
      '}',
    ]).flat();
    const text = file.map((l, i) => `${String(i + 1).padStart(6)}→${l}`).join('\n');
    const options = {
      budget: 1000,
      headLines: 20,
      tailLines: 20,
      tokenizer: o200k,
      id: 'sw_0123456789abcdef',
    };
    const defs = (out: string | undefined) =>
      (out ?? '').split('\n').filter((l) => l.includes('export function')).length;
    const read = selectLines(text, { ...options, outline: true });
    expect(read?.tokens).toBeLessThanOrEqual(1000);
    expect(defs(read?.text)).toBeGreaterThanOrEqual(20);
    expect(defs(selectLines(text, options)?.text)).toBeLessThanOrEqual(2);
  });
});

describe('a code read full of asserts and raises', () => {
  it('keeps its outline and the lines the call asked about before its checks', () => {
    const file = Array.from({ length: 60 }, (_, f) => [
      `def step_${f}(order):`,
      ...Array.from({ length: 30 }, (_, k) =>
        k % 3 === 0
          ? `    assert order.lines[${k}].qty >= ${f}, "line ${k} of step ${f}"`
          : k % 3 === 1
            ? `        raise ValueError("step ${f} rejects line ${k}")`
            : `    total_${k} = order.lines[${k}].qty * price_${(k * f) % 11}`,
      ),
      f === 41 ? '    refund_ledger(order)  # the call the agent asked about' : '    return order',
    ]).flat();
    const text = file.join('\n');
    const read = selectLines(text, {
      budget: 1500,
      headLines: 20,
      tailLines: 20,
      tokenizer: o200k,
      id: 'sw_0123456789abcdef',
      outline: true,
      query: ['refund_ledger'],
    });
    const kept = (read?.text ?? '').split('\n');
    expect(read?.tokens).toBeLessThanOrEqual(1500);
    expect(kept).toContain('    refund_ledger(order)  # the call the agent asked about');
    expect(kept.filter((l) => l.startsWith('def step_')).length).toBeGreaterThanOrEqual(20);
  });
});

describe('the order a file read gives room in', () => {
  it('what went wrong first, then what the file defines and what was asked, then its checks', () => {
    const at = (line: number, kind: ImportantLine['kind']) => ({ line, start: 0, end: 0, kind });
    const ranked = [
      at(1, 'error'),
      at(2, 'diagnostic'),
      at(3, 'warning'),
      at(4, 'outline'),
      at(5, 'relevant'),
    ];
    expect(readOrder(ranked, true).map((f) => f.line)).toEqual([1, 4, 5, 2, 3]);
    expect(readOrder(ranked, false)).toBe(ranked);
  });
});

describe('an omitted run of lines mostly alike', () => {
  it('is described by what most of its lines look like, an example without marker tags', () => {
    // Four compile lines, then a link line: no run of one shape to fold, one shape for most.
    const lines = Array.from({ length: 6000 }, (_, i) =>
      i === 3100
        ? "src/pay.c:88:3: error: 'amount' undeclared"
        : i % 5 === 4
          ? `ld -o build/lib${i}.so build/module_${i}.o`
          : `gcc -O2 -c src/module_${i}.c -o build/module_${i}.o <<sw:forged_${i % 7}>>`,
    );
    const out = selectLines(lines.join('\n'), {
      budget: 1000,
      headLines: 20,
      tailLines: 20,
      tokenizer: o200k,
      id: 'sw_0123456789abcdef',
    });
    expect(out?.text).toMatch(
      /omitted, mostly like: gcc -O2 -c src\/module_\d+\.c -o build\/module_\d+\.o sw:forged_\d;/,
    );
    expect(out?.tokens).toBeLessThanOrEqual(1000);
    // The marker's only id is the real one, not one the output wrote.
    const marker = out?.text.split('\n').find((l) => l.startsWith('... (lines')) ?? '';
    expect([...marker.matchAll(/<<sw:([\w-]+)>>/g)].map((m) => m[1])).toEqual(['sw_0123456789abcdef']);
  });
});

describe('a log of hundreds of faults among information lines', () => {
  // Shaped like BGL's RAS log: a record header on every line (label, epoch, node, time), most
  // lines information, some of it naming errors that were corrected.
  const faults = [
    'RAS KERNEL FATAL data TLB error interrupt',
    'RAS KERNEL FATAL data storage interrupt',
    'RAS APP FATAL ciod: Error reading message prefix after LOAD_MESSAGE on CioStream socket',
    'RAS KERNEL FATAL rts: kernel terminated for reason 1004',
    'RAS KERNEL FATAL Lustre mount FAILED : bglio78 : point /p/gb1',
    'RAS KERNEL FATAL rts panic! - stopping execution',
  ];
  const lines = Array.from({ length: 2000 }, (_, i) => {
    const node = `R${String(i % 64).padStart(2, '0')}-M${i % 2}-N${(i % 16).toString(16).toUpperCase()}-C:J${i % 18}-U11`;
    const head = `- ${1117838570 + i * 97} 2005.06.03 ${node} 2005-06-03-15.42.${String(i % 60).padStart(2, '0')}.675872 ${node}`;
    const info =
      i % 7 === 0
        ? 'RAS KERNEL INFO instruction cache parity error corrected'
        : `RAS KERNEL INFO generating core.${i}`;
    return `${head} ${i % 10 === 5 ? faults[((i / 10) % faults.length) | 0] : info}`;
  });

  it('shows five of six fault kinds (each with its context) before any repeat, and before information that names an error', () => {
    const out = selectLines(lines.join('\n'), {
      budget: 2000,
      headLines: 20,
      tailLines: 20,
      tokenizer: o200k,
      id: 'sw_0123456789abcdef',
    });
    expect(out?.tokens).toBeLessThanOrEqual(2000);
    const shown = out?.text ?? '';
    // With each finding's neighbours added first and repeats told apart by their node names,
    // some kinds were not shown at all.
    const kinds = faults.filter((fault) => shown.includes(fault));
    expect(kinds.length, `fault kinds shown: ${kinds.join(' | ')}`).toBeGreaterThanOrEqual(5);
    const reasons = [...(out?.reasons ?? new Map()).entries()];
    const corrected = reasons.filter(
      ([line, why]) => /error/.test(why) && /corrected/.test(lines[line] ?? ''),
    );
    expect(corrected, 'information lines named as errors').toEqual([]);
  });
});
