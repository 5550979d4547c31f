import { corpusAvailable } from '../src/test-support/corpus.js';
import {
  corpusResults,
  fidelity,
  fidelityByKind,
  formatFidelity,
  METHODS,
} from '../src/test-support/fidelity.js';
import { LOGHUB_DIR, loghubLogs, loghubRecall } from '../src/test-support/loghub.js';
import {
  failureLines,
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
 * For outputs of 12 MB, the lines of their one failure that each method keeps.
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
  await printFidelity(outputs.map((o) => o.text));
  await printHugeFailures();
  await printLoghub();
  if (!corpusAvailable) {
    console.log('\ncorpus: skipped, ../shared/corpus is not here');
    return;
  }
  const results = corpusResults(4000);
  console.log(`\ntool results of the corpus over 4,000 characters: ${results.length}`);
  await printFidelity(results.map((r) => r.text));
  console.log(
    '\nby kind of tool (spillway given the call arguments; oracle: the most needles that fit at all):',
  );
  const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)}%`.padStart(6);
  for (const budget of [1000, 2000]) {
    console.log(`  at ${budget} tokens:`);
    for (const r of await fidelityByKind(results, budget))
      console.log(
        `    ${r.kind.padEnd(7)} ${String(r.outputs).padStart(3)} outputs, ${String(r.needles).padStart(4)} needles: spillway ${pct(r.spillway, r.needles)}  head+tail ${pct(r.headTail, r.needles)}  50/50 ${pct(r.codex, r.needles)} (over budget on ${r.codexOver})  oracle ${pct(r.oracle, r.needles)}`,
      );
  }
}

/** Loghub's labelled lines (alerts, error levels, one-off events) each method keeps whole. */
async function printLoghub(): Promise<void> {
  const logs = loghubLogs();
  if (logs.length === 0)
    return void console.log(`\nloghub: skipped, no samples in ${LOGHUB_DIR} (npm run loghub fetches them)`);
  console.log(
    `\nloghub (${logs.length} systems' 2,000-line samples; labels by loghub's people: BGL's alerts, levels parsed as error or warning where they are a minority, events whose template occurs once), lines kept whole:`,
  );
  for (const kind of ['alerts', 'errors', 'rare'] as const)
    for (const budget of [1000, 2000]) {
      const r = await loghubRecall(logs, kind, budget);
      const kept = Object.entries(r.kept).map(([name, n]) => `${name} ${n}`);
      console.log(
        `  ${kind.padEnd(6)} at ${budget}: of ${r.labelled}: ${kept.join(', ')}; oracle ${r.oracle}`,
      );
    }
}

async function printFidelity(texts: string[]): Promise<void> {
  for (const budget of [1000, 2000]) {
    console.log(`  at ${budget} tokens:`);
    for (const [name, f] of Object.entries(await fidelity(texts, budget)))
      console.log(`    ${formatFidelity(name, f)}`);
  }
}

/** Of each 12 MB output, the lines of its failure (error, traceback, exception) each method keeps. */
async function printHugeFailures(): Promise<void> {
  const huge = hugeProgramOutputs();
  if (huge.length === 0) return void console.log('\nhuge program outputs: skipped, python3 is missing');
  console.log(
    `\n${huge[0]?.name}, ${((huge[0]?.text.length ?? 0) / 1e6).toFixed(0)} M characters, failing at 10%, 50%, 90% (always in the middle): lines of the failure kept at each depth, of ${failureLines(huge[0]?.text ?? '').length}`,
  );
  for (const budget of [1000, 2000]) {
    const row: string[] = [];
    for (const [name, method] of Object.entries(METHODS)) {
      const kept: number[] = [];
      for (const { text } of huge) {
        const out = await method(text, budget);
        kept.push(failureLines(text).filter((l) => out.includes(l)).length);
      }
      row.push(`${name} ${kept.join('/')}`);
    }
    console.log(`  at ${budget} tokens: ${row.join('; ')}`);
  }
}
