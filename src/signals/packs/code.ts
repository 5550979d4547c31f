import type { SignalPack } from '../rule.js';

/**
 * Source code read whole (a file, a test, a plan): the lines where it fails on purpose, catches,
 * checks, logs a warning or leaves work for later. Diagnostics, not errors: a code read is not a
 * failure, and its outline and the lines the call asked about come first (see collapse).
 */
export const code: SignalPack = {
  name: 'code',
  rules: [
    {
      id: 'code/raise',
      kind: 'diagnostic',
      // Python's raise, throw (JS, Java, C#, PHP), Rust's panic!/bail!/unreachable!, Ruby's raise/fail.
      pattern: /^\s*(?:raise\b|throw\s|(?:panic|bail|unreachable|todo|unimplemented)!\(|fail\s+\w)/,
      marks: ['raise', 'throw', '!\\(', 'fail '],
      examples: [
        '        raise ValueError(f"bad amount: {amount}")',
        '    throw new Error("no such order " + id);',
        '        bail!("config has no [server] section");',
      ],
      counterExamples: ['    # we raise the limit when the queue grows', 'the throughput doubled'],
    },
    {
      id: 'code/catch',
      kind: 'diagnostic',
      // except (Python), catch (JS, Java, C#, Kotlin, PHP), rescue (Ruby), recover() (Go).
      pattern: /^\s*(?:except\b[^:]*:|}?\s*catch\s*[({]|rescue\b|(?:if r := )?recover\(\))/,
      marks: ['except', 'catch', 'rescue', 'recover\\('],
      examples: [
        '    except Exception as exc:',
        '    except (KeyError, IndexError):',
        '  } catch (err) {',
        '  rescue StandardError => e',
      ],
      counterExamples: ['    except for the first row', 'we catch up tomorrow'],
    },
    {
      id: 'code/assert',
      kind: 'diagnostic',
      // The checks of a test or an invariant: assert, assert_eq!, expect(...), self.assertEqual.
      pattern:
        /^\s*(?:assert(?:_eq|_ne)?!?(?:\s+\w|\s*\()|(?:self\.)?assert[A-Z]\w*\(|expect\(.+\)\.(?:not\.)?to\w*\()/,
      marks: ['assert', 'expect\\('],
      examples: [
        '        assert total == 7, total',
        '    assert_eq!(cart.total(), 7);',
        '        self.assertEqual(total, 7)',
        '    expect(total).toBe(7);',
      ],
      // (Nor a file named after one: a coverage table's row.)
      counterExamples: [
        '    # assertions run in CI only',
        'expected: 7',
        '  assertLockfilesEqual.js |       0 |        0 |       0 |       0 | 4-20',
      ],
    },
    {
      id: 'code/log-call',
      kind: 'diagnostic',
      // A logger's warning or error call: the paths a program reports as going wrong.
      pattern:
        /\b(?:log(?:ger)?|logging|console|warnings|LOG|Log|slog|log\.Default\(\))\.(?:warn(?:ing)?|error|exception|critical|fatal|Warn|Error|Fatal)f?\(/,
      marks: ['\\.(?:warn|error|exception|critical|fatal|Warn|Error|Fatal)'],
      examples: [
        '    logger.warning("retrying %s", url)',
        '    log.Errorf("sync stopped: %v", err)',
        "    toaster.error('x') ; console.error('Failed to load project users')",
      ],
      counterExamples: ["    toaster.error('Failed to load project users')"],
    },
    {
      id: 'code/todo',
      kind: 'diagnostic',
      // Work left for later, in a comment.
      pattern: /(?:#|\/\/|\/\*|\*|--|;)\s*(?:TODO|FIXME|XXX|HACK)\b/,
      marks: ['TODO', 'FIXME', 'XXX', 'HACK'],
      examples: ['  # TODO: handle the empty cart', '    // FIXME: this leaks the handle'],
      counterExamples: ['TODO.md', '    todo_items = []'],
    },
  ],
};
