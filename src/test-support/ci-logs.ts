/** CI job logs shaped as the systems write them, for the layout and collapse tests. */

const stamp = (line: string, i: number) =>
  `2024-05-14T09:12:${String(10 + (i % 50)).padStart(2, '0')}.${String(1234567 + i).slice(0, 7)}Z ${line}`;

/**
 * A GitHub Actions job as its raw log reads (a timestamp before every line): the runner's set-up,
 * checkout, an install step, a step whose echoed script says "error", `output` as that step's
 * output (`earlier` as the install step's), its exit line, and the clean-up.
 *
 * @example
 * actionsLog(['src/pay.ts(3,7): error TS2322: ...']).split('\n').length; // 42
 */
export function actionsLog(output: readonly string[], earlier: readonly string[] = []): string {
  const lines = [
    "Current runner version: '2.321.0'",
    '##[group]Runner Image Provisioner',
    'Hosted Compute Agent',
    'Version: 20241211.462',
    '##[endgroup]',
    '##[group]Operating System',
    'Ubuntu',
    '22.04.5',
    '##[endgroup]',
    "Download action repository 'actions/checkout@v4' (SHA:11bd71901bbe5b1630ceea73d27597364c9af683)",
    'Complete job name: build (20.x)',
    '##[group]Run actions/checkout@v4',
    'with:',
    '  repository: acme/shop',
    '##[endgroup]',
    'Syncing repository: acme/shop',
    '[command]/usr/bin/git version',
    'git version 2.47.1',
    '##[group]Run npm ci',
    '\x1b[36;1mnpm ci\x1b[0m',
    'shell: /usr/bin/bash -e {0}',
    '##[endgroup]',
    'added 812 packages in 14s',
    ...earlier,
    '##[group]Run if ! command -v tsc; then',
    '\x1b[36;1mif ! command -v tsc; then\x1b[0m',
    '\x1b[36;1m  echo "::error ::tsc is not installed, error: cannot type-check"\x1b[0m',
    '\x1b[36;1m  exit 1\x1b[0m',
    '\x1b[36;1mfi\x1b[0m',
    '\x1b[36;1mnpx tsc --noEmit -p .\x1b[0m',
    'shell: /usr/bin/bash -e {0}',
    'env:',
    '  NODE_OPTIONS: --max-old-space-size=4096',
    '##[endgroup]',
    ...output,
    '##[error]Process completed with exit code 2.',
    'Post job cleanup.',
    '[command]/usr/bin/git version',
    'git version 2.47.1',
    '[command]/usr/bin/git config --local --name-only --get-regexp core\\.sshCommand',
    "Error response from daemon: No such container: 1f3a2b (it's fine)",
    'Cleaning up orphan processes',
  ];
  return `${lines.map(stamp).join('\n')}\n`;
}
