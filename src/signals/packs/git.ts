import type { SignalPack } from '../rule.js';

/** git: merge conflicts and rejected pushes; diffs and their hunks. */
export const git: SignalPack = {
  name: 'git',
  rules: [
    {
      id: 'git/conflict',
      kind: 'error',
      pattern: /^CONFLICT \(/,
      marks: ['CONFLICT'],
      examples: ['CONFLICT (content): Merge conflict in src/app.ts'],
      counterExamples: ['no CONFLICT here'],
    },
    {
      id: 'git/rejected',
      kind: 'error',
      pattern: /^\s*! \[(?:remote )?rejected\]/,
      marks: ['rejected\\]'],
      examples: [
        ' ! [rejected]        main -> main (fetch first)',
        ' ! [remote rejected] main -> main (pre-receive hook declined)',
      ],
      counterExamples: ['the push was [rejected] by review'],
    },
    {
      id: 'git/diff',
      kind: 'diff',
      // Diff structure (not go test's verdicts: --- PASS: TestCharge).
      pattern:
        /^(?:diff --git |@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@|\+\+\+ \S|--- (?!(?:PASS|SKIP|BENCH): )\S)/,
      marks: ['diff --git', '@@ -', '\\+\\+\\+ ', '--- '],
      examples: [
        '--- a/cart.go',
        '@@ -12,7 +12,9 @@ export function charge() {',
        'diff --git a/src/pay.ts b/src/pay.ts',
      ],
      counterExamples: ['--- PASS: TestTotal (0.00s)', '--- SKIP: TestTotal (0.00s)'],
    },
  ],
};
