import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_MISSING, REDIS_SERVER, startRedis, type TestRedis } from '../../test-support/redis.js';
import { FileStore } from '../backends/file-store.js';
import { MemoryStore } from '../backends/memory-store.js';
import { RedisStore } from '../backends/redis-store.js';
import { spillKey } from '../ids.js';
import { stash } from '../stash.js';
import type { Store } from '../store.js';
import { expand, parseLineRange } from './expand.js';
import { recall } from './recall.js';

const log = (lines: number, needleAt: number) =>
  Array.from({ length: lines }, (_, i) =>
    i === needleAt
      ? 'ERROR PaymentError: card declined for order 7731'
      : `[${i}] request served in ${i % 90} ms`,
  ).join('\n');

/** Every page from offset 0 to the end, each stripped of its footer. */
async function allPages(store: Store, id: string, maxTokens: number): Promise<string> {
  let text = '';
  for (let offset = 0, n = 0; n < 10_000; n++) {
    const page = await expand(store, { id, offset, pageSize: maxTokens });
    const footer = /\n\[bytes (\d+)-(\d+) of (\d+); lines \d+-\d+ of \d+; [^\]]*\]$/.exec(page);
    if (!footer) throw new Error(`no footer: ${page.slice(-200)}`);
    text += page.slice(0, footer.index);
    if (Number(footer[2]) === offset && offset < Number(footer[3]))
      throw new Error('a page that does not advance');
    offset = Number(footer[2]);
    if (offset >= Number(footer[3])) return text;
  }
  throw new Error('too many pages');
}

let redis: TestRedis | undefined;
const shared = process.env.SPILLWAY_TEST_REDIS_URL || undefined;
const stores: Store[] = [];
beforeAll(async () => {
  if (!shared && REDIS_SERVER) redis = await startRedis();
});
afterAll(async () => {
  for (const s of stores) await s.close?.();
  await redis?.stop();
});
if (!shared && !REDIS_SERVER) console.warn(`expand over Redis skipped: ${REDIS_MISSING}`);

const STORES: [string, () => Promise<Store>][] = [
  ['memory store', async () => new MemoryStore()],
  [
    'file store',
    async () =>
      new FileStore({
        base: join(mkdtempSync(join(tmpdir(), 'sw-expand-')), 'tr'),
        pruneOnFirstSpill: false,
      }),
  ],
  [
    'Redis store',
    async () => {
      const store = await RedisStore.connect(shared ?? (redis as TestRedis).url, {
        prefix: `exp${process.pid}_${stores.length}`,
      });
      stores.push(store);
      return store;
    },
  ],
];

describe('parseLineRange', () => {
  it('reads ranges as a person writes them, and says what is wrong otherwise', () => {
    expect(parseLineRange('120-180')).toEqual([120, 180]);
    expect(parseLineRange('500-')).toEqual([500, Number.POSITIVE_INFINITY]);
    expect(parseLineRange('42')).toEqual([42, 42]);
    for (const bad of ['0-3', '9-2', 'a-b', '', '-5'])
      expect(() => parseLineRange(bad)).toThrow(/lines must be a range like/);
  });
});

for (const [name, make] of STORES) {
  describe.skipIf(name === 'Redis store' && !shared && !REDIS_SERVER)(
    `spillway_expand over the ${name}${name === 'Redis store' ? ' (needs redis-server or SPILLWAY_TEST_REDIS_URL)' : ''}`,
    () => {
      it('greps the needle of a large original with its line number and context', async () => {
        const store = await make();
        const original = log(120_000, 91_234);
        const id = await stash(store, original);
        expect(await expand(store, { id, grep: 'ERROR|FAIL', context: 1 })).toBe(
          [
            '91234-[91233] request served in 63 ms',
            '91235:ERROR PaymentError: card declined for order 7731',
            '91236-[91235] request served in 65 ms',
            '[grep "ERROR|FAIL": 1 matching lines of 120000]',
          ].join('\n'),
        );
        expect(await expand(store, { id, lines: '91235-91236' })).toBe(
          '91235:ERROR PaymentError: card declined for order 7731\n91236:[91235] request served in 65 ms\n[lines 91235-91236 of 120000]',
        );
      });

      it('says how to read a cut line whole, and reading from the offset it names gives the line from its first byte', async () => {
        const store = await make();
        // Multi-byte characters before the long line, and a stream chunk boundary (1 MiB) inside it.
        const long = `{"items":[${'{"name":"café ☕","ok":true},'.repeat(60_000)}{"error":"boom"}]}`;
        const original = ['première ligne ✓', 'second', long, 'last'].join('\n');
        const id = await stash(store, original);
        const out = await expand(store, { id, lines: '3' });
        const offset = Buffer.byteLength('première ligne ✓\nsecond\n');
        expect(out).toContain(
          `… (line cut at 2000 of ${long.length} characters; all of it: spillway_expand with offset ${offset})`,
        );
        const page = await expand(store, { id, offset });
        expect(page.startsWith('{"items":[{"name":"café ☕"')).toBe(true);
        const grep = await expand(store, { id, grep: 'boom' });
        expect(grep).toContain(
          `of ${long.length} of this line; all of it: spillway_expand with offset ${offset})`,
        );
        expect(await expand(store, { id, lines: '4' })).toBe('4:last\n[lines 4-4 of 4]');
      });

      it('merges overlapping context, separates groups, counts every match and says when it cut', async () => {
        const store = await make();
        const lines = Array.from({ length: 400 }, (_, i) => (i % 3 === 0 ? `warn ${i}` : `ok ${i}`));
        const id = await stash(store, lines.join('\n'));
        const out = await expand(store, { id, grep: '^warn', context: 1, pageSize: 100 });
        expect(out.startsWith('1:warn 0\n2-ok 1\n3-ok 2\n4:warn 3\n')).toBe(true);
        expect(out).toMatch(
          /\n\[grep "\^warn": 134 matching lines of 400; the first \d+ shown \(cut at 100 tokens\); narrow the pattern/,
        );
        const apart = await expand(store, { id, grep: '^warn (0|9)$', context: 0 });
        expect(apart).toBe('1:warn 0\n--\n10:warn 9\n[grep "^warn (0|9)$": 2 matching lines of 400]');
      });

      it('answers a catastrophic pattern at once (linear engine) and refuses backreferences clearly', async () => {
        const store = await make();
        const id = await stash(store, `${'a'.repeat(30)}b\n`.repeat(20_000));
        expect(await expand(store, { id, grep: '^(a+)+$' })).toBe(
          '[grep "^(a+)+$": no matching line in 20000 lines (640000 bytes); try another pattern, or ask for lines "A-B"]',
        );
        await expect(expand(store, { id, grep: '(a)\\1' })).rejects.toThrow(/backreference or lookaround/);
        await expect(expand(store, { id, grep: '(a' })).rejects.toThrow(/not a valid regular expression/);
      });

      it('property: the token pages of an original, put together, are the original exactly', async () => {
        const store = await make();
        const line = fc.oneof(
          fc.string({ maxLength: 120 }),
          fc.constantFrom('', 'ERROR x', '😀👩‍👩‍👧 é', 'a'.repeat(3000)),
        );
        await fc.assert(
          fc.asyncProperty(
            fc.array(line, { minLength: 1, maxLength: 80 }),
            fc.integer({ min: 100, max: 600 }),
            async (lines, maxTokens) => {
              const original = lines.join('\n');
              const id = await stash(store, original);
              expect(await allPages(store, id, maxTokens)).toBe(original);
            },
          ),
          { numRuns: name === 'memory store' ? 60 : 15 },
        );
      });
    },
  );
}

describe('pages of a large original', () => {
  it('number their lines right past the first chunks', async () => {
    const store = new MemoryStore();
    const original = log(200_000, 150_000);
    const id = await stash(store, original);
    const lines = original.split('\n');
    const offset = Buffer.byteLength(lines.slice(0, 150_000).join('\n')) + 1;
    const page = await expand(store, { id, offset, pageSize: 200 });
    const footer = /\n\[bytes (\d+)-(\d+) of \d+; lines (\d+)-(\d+) of 200000; /.exec(page);
    expect(footer?.[3]).toBe('150001');
    expect(page.startsWith(lines[150_000] as string)).toBe(true);
    const shown = page.slice(0, footer?.index).split('\n').filter(Boolean).length;
    expect(Number(footer?.[4])).toBe(150_000 + shown);
  });

  it('are pageSize tokens long; maxTokens (the old name of the page size) still sets it', async () => {
    const store = new MemoryStore();
    const id = await stash(store, log(20_000, 10_000));
    const small = await expand(store, { id, pageSize: 200 });
    expect(await expand(store, { id, maxTokens: 200 })).toBe(small);
    expect((await expand(store, { id, pageSize: 2000 })).length).toBeGreaterThan(small.length * 5);
  });
});

describe('streaming', () => {
  it('lets the event loop run between chunks of a large original', async () => {
    const store = new MemoryStore();
    const id = await stash(store, log(400_000, 399_000));
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const out = await expand(store, { id, grep: 'PaymentError' });
    clearInterval(timer);
    expect(out).toContain('399001:ERROR PaymentError');
    expect(ticks).toBeGreaterThan(2);
  });
});

describe('grep on a long line', () => {
  it('shows the window around the match, not the line’s beginning', async () => {
    const store = new MemoryStore();
    const items = Array.from({ length: 2000 }, (_, i) =>
      i === 1000 ? '{"id":1000,"status":"error","code":"card_declined"}' : `{"id":${i},"status":"ok"}`,
    );
    const line = `{"items":[${items.join(',')}]}`;
    const id = await stash(store, Buffer.from(line));
    for (const grep of ['card_declined', 'card_dec?lined', 'CARD_DECLINED']) {
      const out = await expand(store, { id, grep, ignoreCase: grep === 'CARD_DECLINED' });
      expect(out).toContain('"status":"error","code":"card_declined"');
      expect(out).toMatch(
        /^1:… .* … \(characters \d+-\d+ of \d+ of this line; all of it: spillway_expand with offset 0\)\n/,
      );
      expect(out.length).toBeLessThan(2300);
    }
  });
});

describe('grep on a line of megabytes', () => {
  it('finds a match anywhere, across window edges too, and anchors only at the line’s own ends', async () => {
    const store = new MemoryStore();
    // 2 MiB of one line; needles at the start, across 64 KiB window edges, deep inside, at the end.
    const size = 2 * 1024 * 1024;
    const chars = Array.from({ length: size }, (_, i) => 'abcdefghij'[(i * 7) % 10] as string);
    const put = (at: number, word: string) => {
      for (let k = 0; k < word.length; k++) chars[at + k] = word[k] as string;
    };
    put(0, 'HEAD');
    put(64 * 1024 - 3, 'EDGE1'); // straddles the first window's end
    put(60 * 1024 * 9 - 2, 'EDGE2');
    put(1_500_000, 'DEEP');
    put(size - 4, 'TAIL');
    const id = await stash(store, chars.join(''));
    for (const [grep, found] of [
      ['EDGE1', true],
      ['EDGE2', true],
      ['DEEP', true],
      ['^HEAD', true],
      ['TAIL$', true],
      ['^DEEP', false],
      ['DEEP$', false],
      ['^EDGE1', false],
      ['NOWHERE', false],
    ] as const) {
      const out = await expand(store, { id, grep });
      if (found) expect(out, grep).toMatch(/^1:/);
      else expect(out, grep).toMatch(/^\[grep .*no matching line/);
    }
  });

  it('caps context at 50 lines, and stops when the asker goes away', async () => {
    const store = new MemoryStore();
    const id = await stash(store, log(20_000, 10_000));
    await expect(expand(store, { id, grep: 'ERROR', context: 51 })).rejects.toThrow(
      /context must be at most 50 lines/,
    );
    const gone = new AbortController();
    gone.abort();
    await expect(expand(store, { id, grep: 'ERROR', signal: gone.signal })).rejects.toThrow(/abandoned/);
  });
});

describe('an output over the store limit for one entry', () => {
  it('says on every kind of recall that the saved copy is its first bytes only', async () => {
    const store = new MemoryStore({ maxFileBytes: 4096 });
    const output = log(2000, 1500); // ~60 KB, the needle far past the first 4 KiB
    const put = await store.put(spillKey('s', 'c'), Buffer.from(output));
    expect(put.truncated).toBe(true);
    const note = /the first 4096 bytes of the output only \(the store keeps at most 4096 bytes of one\)/;
    expect(await expand(store, { id: 's/c', grep: 'PaymentError' })).toMatch(note);
    expect(await expand(store, { id: 's/c', grep: 'request served' })).toMatch(note);
    expect(await expand(store, { id: 's/c', lines: '1-3' })).toMatch(note);
    expect(await expand(store, { id: 's/c', maxTokens: 32000 })).toMatch(note);
    expect((await recall('s/c', { store, offset: 4000 })).text).toMatch(note);
    const whole = new MemoryStore();
    await whole.put(spillKey('s', 'c'), Buffer.from('short output'));
    expect(await expand(whole, { id: 's/c' })).toMatch(/end of output\]$/);
  });
});

describe('an id given as its marker tag', () => {
  it('recalls the same original whether the model passes the id, its tag, or the tag as its client escaped it', async () => {
    const store = new MemoryStore();
    const id = await stash(store, log(500, 250));
    const plain = await expand(store, { id, grep: 'ERROR' });
    expect(plain).toContain('card declined');
    for (const given of [`<<sw:${id}>>`, `&lt;&lt;sw:${id}&gt;&gt;`, ` &lt;&lt;sw:${id}&gt;&gt;\n`])
      expect(await expand(store, { id: given, grep: 'ERROR' }), given).toBe(plain);
    // Only a whole tag is read so: anything else is the id as given, and checked as one.
    await expect(expand(store, { id: `&lt;&lt;sw:${id}&gt;`, grep: 'ERROR' })).rejects.toThrow(
      /invalid stash id/,
    );
  });
});
