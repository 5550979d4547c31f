import { describe, expect, it } from 'vitest';
import { actionsLog } from '../test-support/ci-logs.js';
import { getTokenizer } from '../text/tokenizers/index.js';
import { explainCollapse } from './explain.js';
import { selectLines } from './lines.js';

const tokenizer = getTokenizer('o200k');
const select = (text: string, budget: number) =>
  selectLines(text, { budget, headLines: 20, tailLines: 20, tokenizer, id: 'ci' });

// tsc --pretty's colours inside the line, a build's chatter around them, and its count.
const TSC = [
  "\x1b[96msrc/layouts/Nav.tsx\x1b[0m:\x1b[93m55\x1b[0m:\x1b[93m7\x1b[0m - \x1b[91merror\x1b[0m\x1b[90m TS6196: \x1b[0m'ColorMode' is declared but never used.",
  "\x1b[96msrc/pages/Form.tsx\x1b[0m:\x1b[93m33\x1b[0m:\x1b[93m3\x1b[0m - \x1b[91merror\x1b[0m\x1b[90m TS6133: \x1b[0m'ParamsSpec' is declared but its value is never read.",
  "\x1b[96msrc/setup.ts\x1b[0m:\x1b[93m78\x1b[0m:\x1b[93m5\x1b[0m - \x1b[91merror\x1b[0m\x1b[90m TS2739: \x1b[0mType 'SetupServer' is missing the following properties",
];
const output = (before: number, after: number) => [
  ...Array.from(
    { length: before },
    (_, i) => `vite v5.4.2 building for production... transformed module ${i} (src/chunk-${i}.ts)`,
  ),
  ...TSC,
  'Found 3 errors in 3 files.',
  ...Array.from({ length: after }, (_, i) => `Checking docs/page-${i}.md for broken links: ok`),
];

describe("collapse of a CI job's log", () => {
  for (const budget of [600, 1000])
    it(`spends ${budget} tokens on the failed step (its command, tsc's coloured errors, the count, the exit line), not on set-up, echoed script or clean-up`, () => {
      const log = actionsLog(output(400, 300));
      const out = select(log, budget);
      expect(out).toBeDefined();
      const text = out?.text ?? '';
      expect(tokenizer.count(text)).toBeLessThanOrEqual(budget);
      for (const kept of [
        ...TSC,
        'Found 3 errors in 3 files.',
        '##[error]Process completed with exit code 2.',
        '##[group]Run if ! command -v tsc; then',
      ])
        expect(text, kept).toContain(kept);
      // The script's own "::error" and "error:", the runner's set-up and the clean-up's daemon noise.
      for (const left of [
        '::error ::tsc is not installed',
        'Hosted Compute Agent',
        'Error response from daemon',
        'Cleaning up orphan processes',
      ])
        expect(text, left).not.toContain(left);
      // The runner's timestamps are left off what is kept; the markers still name the lines.
      expect(text).not.toMatch(/^2024-05-14T/m);
    });

  it('fills what room the failed step leaves with the chores (a short job keeps its set-up too)', () => {
    const log = actionsLog([
      'npx tsc --noEmit -p .',
      TSC[0] as string,
      'Found 1 error in src/layouts/Nav.tsx:55',
    ]);
    expect(tokenizer.count(log)).toBeGreaterThan(600);
    const out = select(log, 600);
    expect(out?.tokens).toBeLessThanOrEqual(600);
    expect(out?.tokens).toBeGreaterThan(600 * 0.8);
    for (const kept of [TSC[0] as string, '##[error]Process completed with exit code 2.'])
      expect(out?.text, kept).toContain(kept);
  });

  it("ranks the failed step's findings before those of steps that passed", () => {
    // An install step that passed, whose output names errors (tests of error messages, warnings).
    const earlier = Array.from(
      { length: 40 },
      (_, i) => `npm WARN deprecated error-ex-${i}@1.3.${i}: error: this package is no longer supported`,
    );
    const text = select(actionsLog(output(50, 20), earlier), 500)?.text ?? '';
    for (const kept of [...TSC, '##[error]Process completed with exit code 2.'])
      expect(text, kept).toContain(kept);
  });

  it('explain names the step the budget went to, its exit and the chores passed over', async () => {
    const log = actionsLog(output(200, 100));
    const e = await explainCollapse(log, { tokenizer, budget: 800 });
    expect(e.ci?.failed?.rule).toBe('actions/run-group');
    expect(e.ci?.exits.map((x) => x.rule)).toEqual(['actions/step-exit']);
    expect(e.ci?.chores.map((c) => c.rule)).toContain('actions/runner-setup');
    expect(e.ci?.chores.map((c) => c.rule)).toContain('actions/post-job');
    const why = new Map(e.kept.map((k) => [k.text.slice(29), k.why]));
    expect(why.get('##[error]Process completed with exit code 2.')).toMatch(
      /actions\/step-exit|the failed step/,
    );
    expect(why.get(TSC[0] as string)).toBe('error core/error-word');
  });

  it('keeps a Gradle task failure inside an Actions job over the build chatter around it', () => {
    const gradle = [
      ...Array.from({ length: 300 }, (_, i) => `> Task :module-${i}:compileJava UP-TO-DATE`),
      '> Task :module:spring-boot-actuator:checkFormatMain FAILED',
      ...Array.from({ length: 200 }, (_, i) => `> Task :docs-${i}:asciidoctor`),
      '',
      'FAILURE: Build failed with an exception.',
      '',
      '* What went wrong:',
      "Execution failed for task ':module:spring-boot-actuator:checkFormatMain'.",
      '> Formatting violations found in the following files:',
      '',
      'BUILD FAILED in 3m 12s',
    ];
    const text = select(actionsLog(gradle), 700)?.text ?? '';
    for (const kept of [
      'checkFormatMain FAILED',
      "Execution failed for task ':module:spring-boot-actuator:checkFormatMain'",
      'BUILD FAILED in 3m 12s',
    ])
      expect(text, kept).toContain(kept);
  });
});
