import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../engine/config.js';
import { BROWSER_MISSING, launchChromium } from '../test-support/chromium.js';
import { cli } from '../test-support/cli.js';
import { CORPUS_MISSING, corpusAvailable, corpusFiles } from '../test-support/corpus.js';

type Box = { w: number; h: number };

describe.skipIf(!corpusAvailable)('spillway replay', () => {
  const files = corpusFiles();

  it('replays all of the corpus with balanced: 0 violations, 0 recall failures, 0 prefix changes, and savings', async () => {
    const r = await cli(['replay', '--preset', 'balanced', '--json', ...files]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.totals).toMatchObject({
      files: files.length,
      violations: 0,
      recallFailures: 0,
      prefixChanges: 0,
    });
    for (const key of [
      'toolResults',
      'tokensBefore',
      'tokensAfter',
      'overWindowBefore',
      'overWindowAfter',
      'costBefore',
      'costAfter',
    ]) {
      expect(typeof report.totals[key], key).toBe('number');
    }
    expect(report.totals.toolResults).toBeGreaterThan(1500);
    // Reads are kept whole at arrival under balanced (supersede masks them once stale), so the
    // saving at arrival is smaller than aggressive's; it is still real.
    expect(report.totals.tokensAfter).toBeLessThan(report.totals.tokensBefore * 0.85);
    expect(report.stages.supersede?.acted).toBeGreaterThan(0);
    expect(report.totals.costAfter).toBeLessThan(report.totals.costBefore);
    expect(report.files).toHaveLength(files.length);
    expect(report.files[0]).toMatchObject({ file: files[0], violations: 0 });
    expect(report.stages.collapse.acted).toBeGreaterThan(50);
    expect(Object.keys(report.tools)).toContain('Bash');
    expect(report.priceModel).toMatchObject({ cacheRead: 0.1, cacheWrite: 1.25 });
    expect(report.largest.before).toHaveLength(10);
    expect(report.largest.before[0].tokensBefore).toBeGreaterThanOrEqual(
      report.largest.before[9].tokensBefore,
    );
    expect(report.largest.before[0].tokensAfter).toBeLessThanOrEqual(2000);
  });

  it('prints a compact table by default, and honours --window', async () => {
    const r = await cli(['replay', '--window', '20000', files[0] as string, files[1] as string]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^spillway replay, preset balanced, o200k tokens\nfile +results +tokens before +after +saved +over window +checks\*/,
    );
    expect(r.stdout).toMatch(/^total \(2 files\) /m);
    expect(r.stdout).toMatch(/all must be 0 \(they are\)/);
    expect(r.stdout).toMatch(/largest tool results \(tokens before -> after\):\n +[\d.]+K? -> /);
    expect(r.stdout).toMatch(/estimated input cost \(tool results, cache reads 0\.1x, writes 1\.25x\)/);
  });

  it('skips a file that is not a transcript, replays the rest, and exits 1 naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sw-replay-'));
    const bad = join(dir, 'notes.txt');
    writeFileSync(bad, 'just some notes');
    const r = await cli(['replay', '--json', '--report', join(dir, 'r.html'), files[0] as string, bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /skipped .*notes\.txt: not a transcript spillway can read \(it does not start like JSON\); expected one of/,
    );
    const json = JSON.parse(r.stdout);
    expect(json.totals.files).toBe(1);
    expect(json.totals.toolResults).toBeGreaterThan(0);
    expect(json.skipped).toEqual([{ file: bad, reason: expect.stringMatching(/not a transcript/) }]);
    expect(readFileSync(join(dir, 'r.html'), 'utf8')).toContain('notes.txt');
    // Only bad files: nothing to replay is an error, and nothing is written.
    const none = await cli(['replay', '--report', join(dir, 'none.html'), bad]);
    expect(none.code).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(['notes.txt', 'r.html']);
    // A forced format that finds no tool results measured nothing: an error, not "0 results".
    const forced = await cli(['replay', '--format', 'codex', files[0] as string]);
    expect(forced.code).toBe(1);
    expect(forced.stderr).toMatch(/read as codex, it has no tool results/);
    expect((await cli(['replay'])).code).toBe(2);
  });
});
if (!corpusAvailable) describe('spillway replay', () => it.skip(CORPUS_MISSING, () => {}));

/** The corpus when it is here; otherwise a generated Claude Code transcript with large results. */
function reportInputs(): string[] {
  if (corpusAvailable) return corpusFiles();
  const path = join(mkdtempSync(join(tmpdir(), 'sw-replay-')), 'session.jsonl');
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) {
    // Sizes from a few lines to a 4,000-line log: several size buckets, a dozen over budget.
    const size = [5, 20, 40, 100, 300, 1000, 4000][i % 7] as number;
    const output = Array.from({ length: size }, (_, j) => `[${i}.${j}] building target ${j} ... ok`).join(
      '\n',
    );
    lines.push(
      JSON.stringify({
        type: 'assistant',
        sessionId: 'generated',
        message: {
          model: 'claude-sonnet-4-5',
          content: [{ type: 'tool_use', id: `t${i}`, name: i % 2 ? 'Bash' : 'Read', input: {} }],
        },
      }),
    );
    lines.push(
      JSON.stringify({
        type: 'user',
        sessionId: 'generated',
        message: { content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: output }] },
      }),
    );
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return [path];
}

describe('the HTML report in a real browser', () => {
  it.skipIf(BROWSER_MISSING)(
    'writes a self-contained HTML report that renders its charts in headless Chromium (needs chromium and playwright-core)',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sw-replay-'));
      const out = join(dir, 'report.html');
      const r = await cli(['replay', '--report', out, ...reportInputs()]);
      expect(r.code).toBe(0);
      const html = readFileSync(out, 'utf8');
      // Nothing that loads: no scripts, stylesheets, images or frames (URLs inside escaped excerpts are text).
      // No external resource (the tool outputs shown in <pre> are text, whatever they say).
      expect(html.replace(/<pre[^>]*>[\s\S]*?<\/pre>/g, '')).not.toMatch(
        /<script|<link|<img|<iframe|\ssrc=|url\(/i,
      );
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
        const requests: string[] = [];
        page.on('request', (req: { url(): string }) => requests.push(req.url()));
        await page.goto(`file://${out}`);
        // Run in the page (a string, so the test needs no DOM typings): sizes of what was drawn.
        const drawn = (await page.evaluate(`(() => {
        const size = (sel) => [...document.querySelectorAll(sel)].map((el) => { const b = el.getBBox(); return { w: b.width, h: b.height }; });
        return {
          turnsLines: size('#chart-turns polyline'),
          stageBars: size('#chart-stages rect.bar'),
          sizeBars: size('#chart-sizes rect.bar'),
          chartBoxes: [...document.querySelectorAll('svg.chart')].map((s) => s.getBoundingClientRect().height),
          rewrites: document.querySelectorAll('table.rewrites tbody tr:not(.same)').length,
          marked: document.querySelectorAll('table.rewrites pre.after mark').length,
        };
      })()`)) as {
          turnsLines: Box[];
          stageBars: Box[];
          sizeBars: Box[];
          chartBoxes: number[];
          rewrites: number;
          marked: number;
        };
        expect(drawn.turnsLines).toHaveLength(2);
        for (const line of drawn.turnsLines) expect(line.w).toBeGreaterThan(300);
        // One bar per stage of balanced.
        expect(drawn.stageBars.length).toBe(resolveEngineConfig().stages.length);
        expect(Math.max(...drawn.stageBars.map((b) => b.w))).toBeGreaterThan(300);
        expect(drawn.sizeBars.length).toBeGreaterThan(5);
        expect(drawn.chartBoxes.every((h) => h > 50)).toBe(true);
        expect(drawn.rewrites).toBe(10);
        // Each rewrite's after pane opens on its change, the marker highlighted.
        expect(drawn.marked).toBeGreaterThanOrEqual(5);
        const shot = await page.screenshot({ fullPage: true });
        expect(shot.length).toBeGreaterThan(20_000);
        // Self-contained: the page asked for nothing but itself.
        expect(requests).toEqual([`file://${out}`]);
      } finally {
        await browser.close();
      }
    },
  );
  it.skipIf(BROWSER_MISSING)(
    'puts a failed check at the top, naming the result and linking to it (needs chromium and playwright-core)',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sw-replay-'));
      // A budget no marker fits in forces a violation: the result stays over it.
      const config = join(dir, 'tight.json');
      writeFileSync(config, JSON.stringify({ preset: 'balanced', tools: { Bash: { maxTokens: 5 } } }));
      const transcript = join(dir, 'session.jsonl');
      const log = Array.from({ length: 400 }, (_, j) => `step ${j}: compiling unit ${j} ... ok`).join('\n');
      writeFileSync(
        transcript,
        [
          { type: 'user', message: { role: 'user', content: 'build it' } },
          {
            type: 'assistant',
            message: {
              role: 'assistant',
              model: 'claude-sonnet-4-5',
              content: [{ type: 'tool_use', id: 'toolu_tight', name: 'Bash', input: {} }],
            },
          },
          {
            type: 'user',
            message: {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: 'toolu_tight', content: log }],
            },
          },
        ]
          .map((l) => JSON.stringify(l))
          .join('\n'),
      );
      const out = join(dir, 'report.html');
      const r = await cli(['replay', '--config', config, '--report', out, transcript]);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(
        /FAILED CHECKS \(1\):\n {2}budget .*session\.jsonl Bash toolu_tight: \d+ tokens > budget 5/,
      );
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
        await page.goto(`file://${out}`);
        const seen = (await page.evaluate(`(() => {
        const section = document.querySelector('#failed-checks');
        const kpis = document.querySelector('.kpis');
        const link = section && section.querySelector('a[href^="#result-"]');
        return {
          text: section ? section.textContent : '',
          above: !!section && section.getBoundingClientRect().top < kpis.getBoundingClientRect().top,
          visible: !!section && section.getBoundingClientRect().top < innerHeight,
          href: link ? link.getAttribute('href') : null,
        };
      })()`)) as { text: string; above: boolean; visible: boolean; href: string | null };
        expect(seen.above).toBe(true);
        expect(seen.visible).toBe(true);
        expect(seen.text).toMatch(/budget/);
        expect(seen.text).toMatch(/toolu_tight/);
        expect(seen.text).toMatch(/over its budget of 5/);
        expect(seen.href).toMatch(/^#result-/);
        await page.click(`a[href="${seen.href}"]`);
        const target = (await page.evaluate(
          `(() => { const el = document.querySelector(location.hash); return el ? el.textContent : null; })()`,
        )) as string | null;
        expect(target).toMatch(/Bash toolu_tight/);
      } finally {
        await browser.close();
      }
    },
  );
  if (BROWSER_MISSING) it.skip(BROWSER_MISSING, () => {});
});

describe('spillway replay counts what capture at the source did', () => {
  it('counts results that arrived as a hook’s collapse or beside its note, and only those', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'sw-replay-')), 'session.jsonl');
    const results = [
      // Claude Code's hook: the collapse in place of the preview.
      'line 1\n... (lines 2-5999 of 6000 omitted; full output: spillway_expand <<sw:AAAAAAAAAAAAAAAAAAAAAA>>) ...\nerror: boom',
      // Gemini CLI's hook: a note beside the client's own cut.
      'Output too large. Showing first 8,000 ...\n<hook_context>[spillway: the client shows only the head and tail of this output; what matters in the whole of it:\nerror: boom\nthe whole output: spillway_expand id "BBBBBBBBBBBBBBBBBBBBBB" (grep, lines)]</hook_context>',
      'an ordinary small result',
    ];
    const lines = results.flatMap((output, i) => [
      JSON.stringify({
        type: 'assistant',
        sessionId: 'at-source',
        message: {
          model: 'claude-sonnet-4-5',
          content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: {} }],
        },
      }),
      JSON.stringify({
        type: 'user',
        sessionId: 'at-source',
        message: { content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: output }] },
      }),
    ]);
    writeFileSync(path, `${lines.join('\n')}\n`);
    const r = await cli(['replay', '--json', path]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).totals.atSource).toBe(2);
    const text = await cli(['replay', path]);
    expect(text.stdout).toMatch(
      /captured at the source \(a client hook's collapse or note, spillway run\): 2 results/,
    );
  });
});
