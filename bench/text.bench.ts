import { createRequire } from 'node:module';
import { snipDetailed } from '../src/text/snip.js';
import { getTokenizer, TOKENIZER_NAMES } from '../src/text/tokenizers/index.js';
import type { Unit } from '../src/text/units.js';
import { MB, multiLineLog, oneLineJson } from './inputs.js';
import { median, medianRatio, ms, ratio, time } from './measure.js';

/** snip of 15 MB to 32 KiB in each unit, against Buffer.byteLength of the same string. */
export function benchSnip(): void {
  console.log(
    '\n## snip: 15 MB to a budget of 32768 units (median of 9, tokens of 3; baseline: Buffer.byteLength of the same string)',
  );
  for (const input of [oneLineJson(15 * MB), multiLineLog(15 * MB)]) {
    const text = input.text;
    const baseline = time(() => Buffer.byteLength(text, 'utf8'), 9);
    console.log(
      `\n${input.source}: ${(Buffer.byteLength(text) / MB).toFixed(1)} MB, ${text.includes('\n') ? 'multi-line' : 'one line'}; Buffer.byteLength ${ms(baseline)}`,
    );
    for (const unit of ['bytes', 'chars', 'tokens'] as Unit[]) {
      const runs = unit === 'tokens' ? 3 : 9;
      const t = time(() => snipDetailed(text, { budget: 32_768, unit }), runs);
      console.log(
        `  snip --${unit.padEnd(6)} ${ms(t).padStart(10)}  ${ratio(t, baseline).padStart(9)} of byteLength`,
      );
    }
    // snip --tokens against one count of the whole input, interleaved (A B A B), median ratio.
    const o200k = getTokenizer('o200k');
    const ratios: number[] = [];
    for (let i = 0; i < 3; i++) {
      let t0 = performance.now();
      snipDetailed(text, { budget: 32_768, unit: 'tokens' });
      const snipMs = performance.now() - t0;
      t0 = performance.now();
      o200k.count(text);
      ratios.push(snipMs / (performance.now() - t0));
    }
    ratios.sort((a, b) => a - b);
    console.log(
      `  snip --tokens / one o200k count of the input: ${(ratios[1] as number).toFixed(2)}x (median of 3 pairs)`,
    );
  }
}

/** Token counting throughput per tokenizer. */
export function benchTokens(): void {
  console.log('\n## token counting throughput (MB/s, median of 3)');
  const inputs = [
    oneLineJson(4 * MB),
    multiLineLog(4 * MB),
    { text: 'a'.repeat(MB), source: "1 MB of 'a' (one giant pre-token)" },
  ];
  for (const input of inputs) {
    const bytes = Buffer.byteLength(input.text);
    const parts = TOKENIZER_NAMES.map((name) => {
      const t = getTokenizer(name);
      const elapsed = time(() => t.count(input.text), 3);
      return `${name} ${(bytes / MB / (elapsed / 1000)).toFixed(1)} MB/s (${ms(elapsed)})`;
    });
    console.log(`  ${input.source}, ${(bytes / MB).toFixed(1)} MB: ${parts.join('; ')}`);
  }
  benchPathologicalTokens();
  benchCountAfterCollections();
}

/**
 * A short count (a gap marker) right after two full garbage collections, as in a proxy busy with
 * large bodies: gpt-tokenizer's own countTokens, whose matchAll clones its pre-token regex (V8
 * compiles a clone again once two collections have dropped its compilation cache), against
 * spillway's o200k, which keeps one regex. Interleaved, median of 9 pairs.
 */
function benchCountAfterCollections(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    console.log(
      '\n(skipped: a short count after two full collections needs --expose-gc, which npm run bench passes)',
    );
    return;
  }
  const marker =
    '... (lines 4-175316 of 175318 omitted: 2 more like the line above; full output: spillway_expand <<sw:DE9ykWPkdw7wb3pUBEcn-g>> or /tmp/spillway/tool-results/pruned/DE9ykWPkdw7wb3pUBEcn-g.txt) ...\n';
  const lib = libraryO200kCount();
  const ours = getTokenizer('o200k');
  lib(marker);
  ours.count(marker);
  const timeAfterCollections = (count: (s: string) => number) => {
    gc();
    gc();
    const t0 = performance.now();
    count(marker);
    return performance.now() - t0;
  };
  const libMs: number[] = [];
  const oursMs: number[] = [];
  for (let i = 0; i < 9; i++) {
    libMs.push(timeAfterCollections(lib));
    oursMs.push(timeAfterCollections((s) => ours.count(s)));
  }
  console.log(
    `\n## a ${marker.length}-character count right after two full collections (median of 9, interleaved): ` +
      `gpt-tokenizer countTokens ${ms(median(libMs))}, spillway o200k ${ms(median(oursMs))} (${medianRatio(oursMs, libMs).toFixed(3)}x)`,
  );
}

/** gpt-tokenizer's own o200k countTokens, loaded as the tokenizer loads it. */
function libraryO200kCount(): (text: string) => number {
  const lib = createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as {
    countTokens: (text: string, options: object) => number;
  };
  return (text) => lib.countTokens(text, { disallowedSpecial: new Set() });
}

/** 1 MiB with no safe cut for the chunker, each kind against 1 MiB of ordinary log text, interleaved. */
function benchPathologicalTokens(): void {
  console.log(
    '\n## o200k count of 1 MiB with no safe cut / of 1 MiB of log text (A B A B, median of 5 pairs)',
  );
  const o200k = getTokenizer('o200k');
  const ordinary = multiLineLog(MB).text;
  o200k.count('a'.repeat(1_000)); // load the tables and the linear merge's ranks outside the timings
  for (const [name, text] of pathologicalInputs()) {
    const ratios: number[] = [];
    let last = 0;
    for (let i = 0; i < 5; i++) {
      let t0 = performance.now();
      o200k.count(text);
      last = performance.now() - t0;
      t0 = performance.now();
      o200k.count(ordinary);
      ratios.push(last / (performance.now() - t0));
    }
    ratios.sort((a, b) => a - b);
    console.log(
      `  ${name.padEnd(34)} ${ms(last).padStart(9)}  ${(ratios[2] as number).toFixed(2)}x of log text`,
    );
  }
}

/** Deterministic 1 MiB strings that are one pre-token, or long runs of them, for o200k. */
function pathologicalInputs(): [string, string][] {
  const pick = (alphabet: string, length: number): string => {
    const chars = [...alphabet];
    let x = 1;
    let out = '';
    for (let i = 0; i < length; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      out += chars[(x >>> 8) % chars.length];
    }
    return out;
  };
  return [
    ['random lowercase letters', pick('abcdefghijklmnopqrstuvwxyz', MB)],
    [
      'base64 of random bytes',
      Buffer.from(pick('\u0000\u00ff\u0010\u0080abc', (MB * 3) / 4), 'latin1').toString('base64'),
    ],
    ['minified code (one line)', pick('abcdefghijklmnopqrstuvwxyz(){};=,.+-*', MB)],
    [
      'CJK with no spaces (1 MiB of UTF-8)',
      pick('的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年', MB / 3),
    ],
    ['one run of spaces', ' '.repeat(MB)],
  ];
}
