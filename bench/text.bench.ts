import { snipDetailed } from '../src/text/snip.js';
import { getTokenizer, TOKENIZER_NAMES } from '../src/text/tokenizers/index.js';
import type { Unit } from '../src/text/units.js';
import { MB, multiLineLog, oneLineJson } from './inputs.js';
import { ms, ratio, time } from './measure.js';

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
}
