import { describe, expect, it } from 'vitest';
import { cli } from '../test-support/cli.js';
import { keyValueLog, podTable } from '../test-support/rare-fixtures.js';

const buildLog = Array.from({ length: 6000 }, (_, i) =>
  i === 3100
    ? "src/pay.c:88:3: error: 'amount' undeclared"
    : `gcc -O2 -c src/module_${i}.c -o build/module_${i}.o`,
).join('\n');

describe('spillway explain', () => {
  it('names the rule that kept each line, the head and tail, and the runs left out', async () => {
    const r = await cli(['explain', '--tokens', '600'], { stdin: `${buildLog}\n` });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^standard input: 6,000 lines, .* budget 600\nline window: \d+ tokens, \d+ lines kept\n/,
    );
    expect(r.stdout).toContain('rules named 1 lines: core/error-word 1');
    expect(r.stdout).toMatch(
      /^3101 {2}error core\/error-word {2}src\/pay\.c:88:3: error: 'amount' undeclared$/m,
    );
    expect(r.stdout).toMatch(/^3100 {2}context of 3101 /m);
    expect(r.stdout).toMatch(/^ {3}1 {2}head /m);
    expect(r.stdout).toMatch(/^6000 {2}tail /m);
    expect(r.stdout).not.toMatch(/^6001 /m);
    expect(r.stdout).toMatch(/… lines 8-3,0\d\d left out/);
  });

  it('shows a line that only rarity found as rare, with the rules that fired and what was asked', async () => {
    const { text, needle } = keyValueLog(2_871);
    const r = await cli(['explain', '--tokens', '1000', '--json'], { stdin: text });
    const e = JSON.parse(r.stdout);
    expect(e).toMatchObject({ window: 'line', budget: 1000, maxTokens: 1000, rarity: { asked: true } });
    expect(e.tokensAfter).toBeLessThanOrEqual(1000);
    expect(e.kept).toContainEqual({ line: 2872, why: 'rare', text: needle });
    expect(e.text).toContain(needle);
    // The pod table's crash has a rule: the rule is named, not rarity.
    const pods = JSON.parse((await cli(['explain', '--json'], { stdin: podTable(10).text })).stdout);
    expect(pods.kept.find((k: { line: number }) => k.line === 12)?.why).toBe('error k8s/bad-state');
    expect(pods.rules).toEqual({ 'k8s/bad-state': 1 });
  });

  it('keeps the lines that name what --call asked for, as relevant', async () => {
    const lines = Array.from(
      { length: 3000 },
      (_, i) => `debug: worker ${i % 17} polled queue in ${i % 40} ms`,
    );
    lines[1400] = 'test payments::charge_refund ... FAILED';
    lines[2200] = 'charge_refund left the ledger at -12.50';
    const e = JSON.parse(
      (await cli(['explain', '--json', '--call', 'cargo test charge_refund'], { stdin: lines.join('\n') }))
        .stdout,
    );
    expect(e.kept).toContainEqual({ line: 2201, why: 'relevant', text: lines[2200] });
    // What the user said names it just as well.
    const said = JSON.parse(
      (
        await cli(['explain', '--json', '--said', 'why is charge_refund negative?'], {
          stdin: lines.join('\n'),
        })
      ).stdout,
    );
    expect(said.kept).toContainEqual({ line: 2201, why: 'relevant', text: lines[2200] });
  });

  it('says when a text fits, and refuses bad usage', async () => {
    const r = await cli(['explain'], { stdin: 'short output\n' });
    expect(r.stdout).toContain('fits the budget: collapse leaves it as it is');
    expect((await cli(['explain', 'a', 'b'])).code).toBe(2);
    const missing = await cli(['explain', '/nonexistent/file.log']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('cannot read "/nonexistent/file.log": no such file');
  });
});
