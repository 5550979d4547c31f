import { readFileSync, statSync } from 'node:fs';
import { resolveEngineConfig } from '../src/engine/config.js';
import { readTranscript } from '../src/replay/readers/index.js';
import { replayConversation } from '../src/replay/replay-conversation.js';
import { corpusAvailable, corpusFiles } from '../src/test-support/corpus.js';
import { MB } from './inputs.js';
import { ms, ratio } from './measure.js';

/** Replay of the whole corpus, in MB of transcript per second, against reading and parsing it. */
export async function benchReplay(): Promise<void> {
  console.log('\n## replay: the whole corpus with balanced (baseline: reading and parsing the same files)');
  if (!corpusAvailable) {
    console.log('  skipped: ../shared/corpus is not here');
    return;
  }
  const files = corpusFiles();
  const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
  let t = performance.now();
  const parsed = files.map((f) => readTranscript(readFileSync(f, 'utf8'), f));
  const parseMs = performance.now() - t;
  const config = resolveEngineConfig({ preset: 'balanced' });
  t = performance.now();
  let turns = 0;
  for (const p of parsed) {
    for (const c of p.conversations) turns += (await replayConversation(c, { config })).turns;
  }
  const replayMs = performance.now() - t;
  console.log(`  ${files.length} files, ${(bytes / MB).toFixed(1)} MB, ${turns} turns`);
  console.log(`  read + parse       ${ms(parseMs).padStart(9)}  1.00x`);
  console.log(
    `  replay (balanced)  ${ms(replayMs).padStart(9)}  ${ratio(replayMs, parseMs)} of read + parse; ${(bytes / MB / ((parseMs + replayMs) / 1000)).toFixed(1)} MB of transcript per second in all`,
  );
}
