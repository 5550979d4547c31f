import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cargoTestRun, goServiceLog, makeBuild } from './compiled-programs.js';
import { casesFailingAt, inTemp, run } from './program-run.js';

/** One output of a real program, and where its failure was placed (0-1 of the way through). */
export interface ProgramOutput {
  name: string;
  depth: number;
  text: string;
}

/** A program a generator needs, and whether this machine has it. */
export const PROGRAMS = {
  python3: spawnSync('python3', ['--version']).status === 0,
  gcc: spawnSync('gcc', ['--version']).status === 0,
  make: spawnSync('make', ['--version']).status === 0,
  pytest: spawnSync('python3', ['-m', 'pytest', '--version']).status === 0,
  go: spawnSync('go', ['version']).status === 0,
  cargo: spawnSync('cargo', ['--version']).status === 0,
} as const;

export const PROGRAMS_MISSING = `program outputs need ${Object.keys(PROGRAMS).join(', ')}; missing: ${Object.entries(
  PROGRAMS,
)
  .filter(([, ok]) => !ok)
  .map(([name]) => name)
  .join(', ')}`;

/** `node --test` over many passing tests and one failing one, placed at `depth`. */
function nodeTestRun(depth: number): string {
  return inTemp((dir) => {
    const tests = casesFailingAt(
      600,
      depth,
      (i) =>
        `test('charges card ${i}', () => { assert.strictEqual(charge(${i}), 'ok', 'payment declined for order ${i}'); });`,
      (i) => `test('case ${i} keeps the cart', () => { assert.ok(${i} >= 0); });`,
    );
    writeFileSync(
      join(dir, 'cart.test.mjs'),
      `import test from 'node:test';\nimport assert from 'node:assert';\nconst charge = (n) => (n % 2 ? 'declined' : 'declined');\n${tests.join('\n')}\n`,
    );
    return run(process.execPath, ['--test', '--test-reporter=tap', 'cart.test.mjs'], dir);
  });
}

/** A Python service log with an exception caught, logged with its traceback, and carried on. */
function pythonServiceLog(depth: number): string {
  return inTemp((dir) => {
    writeFileSync(
      join(dir, 'service.py'),
      `import logging, sys, traceback
logging.basicConfig(stream=sys.stdout, format='%(asctime)s %(levelname)s %(name)s %(message)s', level=logging.INFO)
log = logging.getLogger('orders')
def parse(order):
    return int(order['amount'])
def handle(order):
    return parse(order) * 2
N = 4000
bad = int(N * ${depth})
for i in range(N):
    order = {'id': i, 'amount': 'twelve' if i == bad else str(i)}
    try:
        handle(order)
        log.info('processed order %d in %d ms', i, i % 37)
    except Exception:
        log.error('order %d failed', i)
        traceback.print_exc(file=sys.stdout)
print('processed %d orders, 1 failed' % N)
sys.exit(1)
`,
    );
    return run('python3', ['service.py'], dir);
  });
}

/**
 * A Python service logging JSON lines (stdlib logging with a JSON formatter, as structured
 * loggers print), with one error-level record at `depth` whose message does not say "error".
 */
function pythonJsonLog(depth: number): string {
  return inTemp((dir) => {
    writeFileSync(
      join(dir, 'checkout.py'),
      `import json, logging, sys
class JsonFormatter(logging.Formatter):
    def format(self, record):
        return json.dumps({'ts': self.formatTime(record), 'levelname': record.levelname, 'logger': record.name,
                           'message': record.getMessage(), **getattr(record, 'ctx', {})})
handler = logging.StreamHandler(sys.stdout)
handler.setFormatter(JsonFormatter())
log = logging.getLogger('checkout')
log.addHandler(handler)
log.setLevel(logging.INFO)
N = 4000
bad = int(N * ${depth})
for i in range(N):
    if i == bad:
        log.error('payment provider unreachable', extra={'ctx': {'order': i, 'provider': 'acme'}})
    else:
        log.info('order placed', extra={'ctx': {'order': i, 'items': i % 5 + 1, 'ms': i % 37}})
`,
    );
    return run('python3', ['checkout.py'], dir);
  });
}

/** Python's unittest, verbose, with one failing test at `depth` (its traceback comes at the end). */
function pythonUnittest(depth: number): string {
  return inTemp((dir) => {
    const tests = casesFailingAt(
      1200,
      depth,
      (i) => `    def test_case_${i}(self):\n        self.assertEqual(refund(${i}), ${i}, 'refund mismatch')`,
      (i) => `    def test_case_${i}(self):\n        self.assertTrue(${i} >= 0)`,
    );
    writeFileSync(
      join(dir, 'test_refunds.py'),
      `import unittest\ndef refund(n):\n    return n - 1\nclass Refunds(unittest.TestCase):\n${tests.join('\n')}\n`,
    );
    return run('python3', ['-m', 'unittest', '-v', 'test_refunds'], dir);
  });
}

/**
 * pytest -v over many passing tests and one failing, at `depth`: a PASSED line each, padded so
 * the percentages line up, then the failure's source, its E lines and where it was raised.
 */
function pytestRun(depth: number): string {
  return inTemp((dir) => {
    const tests = casesFailingAt(
      1500,
      depth,
      (i) =>
        `def test_order_${i}():\n    assert ledger_total(${i}) == ${i}, 'ledger total drifted for order ${i}'`,
      (i) => `def test_order_${i}():\n    assert ${i} >= 0`,
    );
    writeFileSync(
      join(dir, 'test_ledger.py'),
      `def ledger_total(n):\n    return n - 1\n${tests.join('\n')}\n`,
    );
    return run('python3', ['-m', 'pytest', '-v', '-p', 'no:cacheprovider', 'test_ledger.py'], dir);
  });
}

/** The generators, each run at three depths of its output. */
export const GENERATORS: {
  name: string;
  needs: (keyof typeof PROGRAMS)[];
  run: (depth: number) => string;
}[] = [
  { name: 'node --test (TAP)', needs: [], run: nodeTestRun },
  { name: 'python service log', needs: ['python3'], run: pythonServiceLog },
  { name: 'python unittest -v', needs: ['python3'], run: pythonUnittest },
  { name: 'pytest -v', needs: ['python3', 'pytest'], run: pytestRun },
  { name: 'python JSON log', needs: ['python3'], run: pythonJsonLog },
  { name: 'make -k with gcc', needs: ['gcc', 'make'], run: makeBuild },
  { name: 'go service log', needs: ['go'], run: goServiceLog },
  { name: 'cargo test, RUST_BACKTRACE=1', needs: ['cargo'], run: cargoTestRun },
];

export const DEPTHS = [0.1, 0.5, 0.9] as const;

/**
 * A Python walk of /usr printing each file's size and path (cycled to about 12 MB), which at
 * `depth` fails to stat a file, prints the traceback and carries on: varied lines, unlike a log
 * of one repeated shape, whose odd lines stand out by shape alone.
 */
function pythonFileWalk(depth: number): string {
  return inTemp((dir) => {
    writeFileSync(
      join(dir, 'walk.py'),
      `import os, sys, traceback
paths = []
for root, dirs, files in os.walk('/usr'):
    dirs.sort()
    paths.extend(os.path.join(root, f) for f in sorted(files))
target = 12_000_000
bad = int(target * ${depth})
written = 0
failed = False
i = 0
while written < target:
    path = paths[i % len(paths)]
    i += 1
    try:
        if not failed and written >= bad:
            failed = True
            path = path + '.gone'
        size = os.lstat(path).st_size
    except OSError:
        print('ERROR: could not read %s' % path)
        traceback.print_exc(file=sys.stdout)
        continue
    line = '%10d %s' % (size, path)
    print(line)
    written += len(line) + 1
print('walked %d files, 1 could not be read' % i)
sys.exit(1)
`,
    );
    return run('python3', ['walk.py'], dir);
  });
}

/**
 * Outputs of about 12 MB from a real program, its failure at each depth: past the first 256 KiB
 * and before the last 768 KiB at every depth, where only errors, failures and exceptions are
 * searched for. Empty without python3.
 *
 * @example
 * for (const out of hugeProgramOutputs()) console.log(out.depth, out.text.length);
 */
export function hugeProgramOutputs(): ProgramOutput[] {
  if (!PROGRAMS.python3) return [];
  return DEPTHS.map((depth) => ({ name: 'python walk of /usr', depth, text: pythonFileWalk(depth) }));
}

/**
 * The lines of a huge output's failure: the error, the traceback (its header, frame and code
 * lines, and the carets of Python 3.11 and later) and the exception.
 *
 * @example
 * failureLines(hugeProgramOutputs()[0].text).at(-1); // 'FileNotFoundError: [Errno 2] ...'
 */
export function failureLines(text: string): string[] {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith('ERROR: could not read'));
  const end = lines.findIndex((l, i) => i > at && /^\w+Error: /.test(l));
  return at < 0 || end < 0 ? [] : lines.slice(at, end + 1);
}

/**
 * Runs every generator whose programs this machine has, at every depth.
 *
 * @example
 * for (const out of programOutputs()) console.log(out.name, out.depth, out.text.length);
 */
export function programOutputs(): ProgramOutput[] {
  const outputs: ProgramOutput[] = [];
  for (const generator of GENERATORS) {
    if (!generator.needs.every((p) => PROGRAMS[p])) continue;
    for (const depth of DEPTHS) outputs.push({ name: generator.name, depth, text: generator.run(depth) });
  }
  return outputs;
}
