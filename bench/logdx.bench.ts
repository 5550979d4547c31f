import {
  type CaseScore,
  LOGDX_DIR,
  LOGDX_METHODS,
  logdxCases,
  logdxScores,
  publishedRecall,
  recallOf,
} from '../src/test-support/logdx.js';

const BUDGETS = [1000, 2000, 4000];
const pct = (a: number, b: number) => (b === 0 ? '    -' : `${((100 * a) / b).toFixed(1)}%`.padStart(6));

/**
 * LogDx-CI (eyuansu62/LogDx, CC-BY-4.0): of the signals a person verified in real GitHub Actions
 * failure logs, the share each method keeps at 1,000 / 2,000 / 4,000 tokens, by split and by
 * signal type, with critical recall and tokens used; LogDx's own tail -200 and grep uncut, with
 * its published figures for the same cases beside them (the check that the scorer is LogDx's).
 */
export async function benchLogdx(): Promise<void> {
  console.log('\n## logdx: signals a person verified in real CI failure logs, kept at a budget');
  const cases = logdxCases();
  if (cases.length === 0)
    return void console.log(
      `skipped: no cases in ${LOGDX_DIR} (npm run logdx fetches them; -- --from DIR copies a clone)`,
    );
  const splits = [...new Set(cases.map((c) => c.split))];
  console.log(
    `${cases.length} cases (${splits.map((s) => `${s} ${cases.filter((c) => c.split === s).length}`).join(', ')})`,
  );
  await printUncut(cases, splits);
  const methods = Object.keys(LOGDX_METHODS);
  for (const budget of BUDGETS) {
    const scores = await logdxScores(cases, budget);
    console.log(`\nat ${budget} tokens: signal recall (critical recall), mean tokens, over budget`);
    console.log(`  ${'split'.padEnd(12)} ${methods.map((m) => m.padStart(19)).join('')}`);
    for (const split of [...splits, 'all']) {
      const row = methods.map((m) =>
        cell(scores.filter((s) => s.method === m && (split === 'all' || s.split === split))),
      );
      console.log(`  ${split.padEnd(12)} ${row.join('')}`);
    }
    const usage = methods.map((m) => {
      const mine = scores.filter((s) => s.method === m);
      const mean = mine.reduce((a, s) => a + s.tokens, 0) / mine.length;
      return `${String(Math.round(mean)).padStart(6)} t, over ${mine.filter((s) => s.tokens > budget).length}`.padStart(
        19,
      );
    });
    console.log(`  ${'tokens'.padEnd(12)} ${usage.join('')}`);
    console.log('  by signal type (all splits):');
    const types = [...new Set(cases.flatMap((c) => c.signals.map((s) => s.type)))].sort();
    for (const type of types) {
      const row = methods.map((m) =>
        cell(
          scores.filter((s) => s.method === m),
          type,
        ),
      );
      console.log(`  ${type.padEnd(12).slice(0, 12)} ${row.join('')}`);
    }
    printMissed(
      scores.filter((s) => s.method === 'spillway' && s.split === 'dev'),
      budget,
    );
  }
}

function cell(scores: readonly CaseScore[], type?: string): string {
  const r = recallOf(scores, type);
  return `${pct(r.kept, r.signals)} (${pct(r.criticalKept, r.critical)})`.padStart(19);
}

/** LogDx's baselines as it runs them (uncut), beside its published scores for the same cases. */
async function printUncut(cases: Parameters<typeof logdxScores>[0], splits: string[]): Promise<void> {
  console.log('\nLogDx baselines uncut, macro signal recall (ours / published, same cases), mean tokens:');
  const scores = await logdxScores(cases, undefined, ['tail -200', 'grep -B3 -A8']);
  for (const split of splits) {
    const row = (['tail', 'grep'] as const).map((name) => {
      const mine = scores.filter((s) => s.split === split && s.method.startsWith(name));
      const published = publishedRecall(split, name);
      const theirs = mine.map((s) => published.get(s.id)).filter((v) => v !== undefined);
      const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
      return `${name} ${pct(recallOf(mine).macro, 1)} / ${theirs.length ? pct(mean(theirs), 1) : '    -'} at ${Math.round(mean(mine.map((s) => s.tokens)))} t`;
    });
    console.log(`  ${split.padEnd(12)} ${row.join('   ')}`);
  }
}

/** What spillway missed on the dev split (the split rules are developed on), to read. */
function printMissed(scores: readonly CaseScore[], budget: number): void {
  if (!process.env.SPILLWAY_LOGDX_MISSED) return;
  for (const s of scores)
    for (const m of s.missed)
      console.log(`  missed at ${budget}: ${s.id} ${m.type}: ${(m.value ?? m.file ?? '').slice(0, 100)}`);
}
