import { corpusAvailable } from '../src/test-support/corpus.js';
import { corpusResultTexts, fidelity, formatFidelity } from '../src/test-support/fidelity.js';
import {
  GENERATORS,
  hugeProgramOutputs,
  PROGRAMS,
  programOutputs,
} from '../src/test-support/program-outputs.js';

/**
 * What the model sees: the share of lines that matter (errors, failures, exceptions, exit
 * statuses, summaries, diagnostics, warnings, frames, diff hunks, and the last five lines)
 * still visible after fitting an output to 1,000 and 2,000 tokens, with budget fill and
 * violations; spillway's collapse beside plain head+tail and Codex's 50/50 at 4 bytes a token.
 */
export async function benchFidelity(): Promise<void> {
  console.log(
    '\n## fidelity: lines that matter kept at a budget (needle retention), fill, over-budget count',
  );
  const missing = GENERATORS.filter((g) => !g.needs.every((p) => PROGRAMS[p])).map((g) => g.name);
  const outputs = programOutputs();
  console.log(
    `\nreal program outputs: ${outputs.length} (${[...new Set(outputs.map((o) => o.name))].join(', ')}; failure at 10%, 50%, 90% of each)${missing.length ? `; skipped for missing programs: ${missing.join(', ')}` : ''}`,
  );
  for (const budget of [1000, 2000]) {
    console.log(`  at ${budget} tokens:`);
    const byMethod = await fidelity(
      outputs.map((o) => o.text),
      budget,
    );
    for (const [name, f] of Object.entries(byMethod)) console.log(`    ${formatFidelity(name, f)}`);
  }
  const huge = hugeProgramOutputs();
  if (huge.length === 0) console.log('\nhuge program outputs: skipped, python3 is missing');
  else {
    console.log(
      `\n${huge[0]?.name}: ${(huge[0]?.text.length ?? 0) / 1e6} M characters, failure at 10%, 50%, 90% (all in the middle past the first 256 KiB and before the last 768 KiB)`,
    );
    for (const budget of [1000, 2000]) {
      console.log(`  at ${budget} tokens:`);
      const byMethod = await fidelity(
        huge.map((o) => o.text),
        budget,
      );
      for (const [name, f] of Object.entries(byMethod)) console.log(`    ${formatFidelity(name, f)}`);
    }
  }
  if (!corpusAvailable) {
    console.log('\ncorpus: skipped, ../shared/corpus is not here');
    return;
  }
  const texts = corpusResultTexts(4000);
  console.log(`\ntool results of the corpus over 4,000 characters: ${texts.length}`);
  for (const budget of [1000, 2000]) {
    console.log(`  at ${budget} tokens:`);
    for (const [name, f] of Object.entries(await fidelity(texts, budget)))
      console.log(`    ${formatFidelity(name, f)}`);
  }
}
