import { benchCompare } from './compare.bench.js';
import { benchFidelity } from './fidelity.bench.js';
import { benchFleet } from './fleet.bench.js';
import { benchGateway } from './gateway.bench.js';
import { benchHooks } from './hooks.bench.js';
import { benchIntegrations } from './integrations.bench.js';
import { benchLogdx } from './logdx.bench.js';
import { benchLongSession } from './long-session.bench.js';
import { benchHealth, benchProxy } from './proxy.bench.js';
import { benchRecall, benchRecallFirstGrep, benchRecallLongLine } from './recall.bench.js';
import { benchReplay } from './replay.bench.js';
import { benchSession } from './session.bench.js';
import { benchCollapse, benchUnsaved } from './stages.bench.js';
import { benchStart } from './start.bench.js';
import { benchCap, benchStores } from './store.bench.js';
import { benchSnip, benchTokens } from './text.bench.js';

// Every figure is a ratio against a baseline measured in the same run, because timings on
// shared machines are noisy; absolute times are printed only for context.
const suites: Record<string, () => void | Promise<void>> = {
  snip: benchSnip,
  tokens: benchTokens,
  cap: benchCap,
  collapse: benchCollapse,
  unsaved: benchUnsaved,
  turns: benchLongSession,
  fidelity: benchFidelity,
  logdx: benchLogdx,
  proxy: benchProxy,
  health: benchHealth,
  recall: benchRecall,
  'recall-long-line': benchRecallLongLine,
  'recall-first-grep': benchRecallFirstGrep,
  replay: benchReplay,
  session: benchSession,
  stores: benchStores,
  start: benchStart,
  gateway: benchGateway,
  hooks: benchHooks,
  integrations: benchIntegrations,
  fleet: benchFleet,
  compare: benchCompare,
};
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !(w in suites));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; choose from: ${Object.keys(suites).join(', ')}`);
  process.exit(2);
}
for (const [name, run] of Object.entries(suites)) {
  if (wanted.length === 0 || wanted.includes(name)) await run();
}
