import { benchSnip, benchTokens } from './text.bench.js';

// Every figure is a ratio against a baseline measured in the same run, because timings on
// shared machines are noisy; absolute times are printed only for context.
const suites: Record<string, () => void> = { snip: benchSnip, tokens: benchTokens };
const wanted = process.argv.slice(2);
for (const [name, run] of Object.entries(suites)) {
  if (wanted.length === 0 || wanted.includes(name)) run();
}
