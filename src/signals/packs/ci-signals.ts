import type { SignalPack } from '../rule.js';

/**
 * What CI systems and task runners say when a step fails, beside the tools' own errors:
 * annotations (`##[error]`, `::error`), pre-commit's hook verdicts, BuildKit's failed step,
 * GitLab's, Jenkins' and Azure's exit lines, and the task runners (pnpm, yarn, turbo, nx, jest)
 * whose last words name the task that failed. The layout (set-up, steps, echoed scripts) is
 * in packs/ci.ts.
 */
export const ciSignals: SignalPack = {
  name: 'ci',
  rules: [
    {
      id: 'ci/annotation-error',
      kind: 'error',
      // GitHub Actions' and Azure's error annotations, as the log shows them and as a step
      // writes them (`::error file=...::message`, `##vso[task.logissue type=error]`).
      pattern: /^(?:##\[error\]|::error(?: [^:]*)?::|##vso\[task\.logissue type=error[^\]]*\])/,
      marks: ['##\\[error\\]', '::error', 'type=error'],
      middle: ['##\\[error\\]', '::error', 'type=error'],
      examples: [
        "##[error]src/pay.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
        '::error file=app/models.py,line=12::F401 `os` imported but unused',
        '##vso[task.logissue type=error;sourcepath=src/Pay.cs;linenumber=9]CS0103: The name x does not exist',
        '##[error]Process completed with exit code 2.',
      ],
      counterExamples: ['echo "::error ::$cmd is not installed"', '  printf "::error::%s\\n" "$msg"'],
    },
    {
      id: 'ci/annotation-warning',
      kind: 'warning',
      pattern: /^(?:##\[warning\]|::warning(?: [^:]*)?::|##vso\[task\.logissue type=warning)/,
      marks: ['##\\[warning\\]', '::warning', 'type=warning'],
      examples: [
        '##[warning]Node.js 16 actions are deprecated. Please update the following actions to use Node.js 20',
        '::warning file=setup.cfg,line=3::license_file is deprecated',
      ],
      counterExamples: ['apt-get remove -y firefox || echo "::warning::could not remove firefox"'],
    },
    {
      id: 'ci/pre-commit-failed',
      kind: 'failure',
      // pre-commit's verdict per hook: its name padded with dots, then Failed (often in red).
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the verdict is coloured
      pattern: /^\S.*?\.{3,}(?:\x1b\[[\d;]*m)*Failed(?:\x1b\[[\d;]*m)*\s*$/,
      marks: ['\\.\\.\\.(?:\\x1b\\[[\\d;]*m)*Failed'],
      middle: ['\\.\\.\\.(?:\\x1b\\[[\\d;]*m)*Failed'],
      examples: [
        'mypy.....................................................................Failed',
        'ruff (legacy alias)......................................................\x1b[41mFailed\x1b[m',
        'Check for merge conflicts...........................................Failed',
      ],
      counterExamples: [
        'black....................................................................Passed',
        'codespell............................................(no files to check)Skipped',
      ],
    },
    {
      id: 'ci/pre-commit-hook',
      kind: 'exit',
      // Under a failed hook: its exit code, whether it rewrote files. (`- hook id:` and
      // `- duration:` follow every hook with --verbose, the ones that passed too: the failed
      // hook's line names it.)
      pattern: /^- (?:exit code: [1-9]\d*|files were modified by this hook)$/,
      marks: ['^- exit code', '^- files were modified'],
      examples: ['- exit code: 1', '- files were modified by this hook'],
      counterExamples: ['- hook id: mypy', '- duration: 0.06s', '- exit code: 0'],
    },
    {
      id: 'ci/buildkit-failed-step',
      kind: 'failure',
      // BuildKit's report of the step that failed: `------` then ` > [stage k/n] RUN …:`.
      pattern: /^ ?> \[[\w.-]+(?: \d+\/\d+)?\] (?:RUN|COPY|ADD) .*:$|^#\d+ ERROR: /,
      marks: ['> \\[', '^#\\d+ ERROR'],
      middle: ['> \\[', 'ERROR'],
      examples: [
        ' > [build 4/7] RUN npm ci:',
        '> [stage-1 3/5] COPY --from=build /app/dist /srv:',
        '#12 ERROR: process "/bin/sh -c npm ci" did not complete successfully: exit code: 1',
      ],
      counterExamples: ['#12 [build 4/7] RUN npm ci', '> [build 4/7] RUN npm ci'],
    },
    {
      id: 'ci/dockerfile-line',
      kind: 'diagnostic',
      // BuildKit names the Dockerfile line of the failed instruction, then quotes it.
      pattern: /^(?:\S*\/)?(?:Dockerfile|Containerfile)[\w.-]*:\d+$/,
      marks: ['ockerfile[\\w.-]*:\\d', 'ontainerfile[\\w.-]*:\\d'],
      examples: ['Dockerfile:23', 'docker/Dockerfile.ci:118', 'Containerfile:7'],
      counterExamples: ['Dockerfile: 23 lines', 'COPY Dockerfile:/tmp'],
    },
    {
      id: 'ci/failed-to-solve',
      kind: 'failure',
      pattern: /^(?:ERROR: )?failed to (?:solve|build|compute cache key)\b|^ERROR: failed to build: /,
      marks: ['failed to (?:solve|build|compute)'],
      middle: ['failed to solve', 'failed to build'],
      examples: [
        'ERROR: failed to solve: process "/bin/sh -c pip install -r requirements.txt" did not complete successfully: exit code: 1',
        'failed to compute cache key: "/app/package.json" not found: not found',
      ],
      counterExamples: ['it failed to solve the puzzle'],
    },
    {
      id: 'ci/script-exit',
      kind: 'failure',
      // CI systems' and task runners' exit lines the generic rule does not know.
      pattern:
        /^(?:ERROR: Job failed: |ERROR: script returned exit code [1-9]|Exited with code (?:exit status )?[1-9]|(?:🚨 )?Error: The command exited with status [1-9]|\s*\[?ELIFECYCLE\]?\s+(?:Command|Test) failed|(?:ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL|ERR_PNPM_\w+)\b)/,
      marks: [
        'ERROR: Job failed',
        'returned exit code',
        'Exited with code',
        'The command exited',
        'ELIFECYCLE',
        'ERR_PNPM_',
      ],
      middle: ['Job failed', 'returned exit code', 'Exited with code', 'ELIFECYCLE', 'ERR_PNPM_'],
      examples: [
        'ERROR: Job failed: exit code 1',
        'ERROR: script returned exit code 2',
        'Exited with code exit status 1',
        '🚨 Error: The command exited with status 1',
        ' ELIFECYCLE  Command failed with exit code 1.',
        '[ELIFECYCLE] Test failed. See above for more details.',
        'ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @shop/web@1.0.0 test: `vitest run`',
      ],
      counterExamples: ['Exited with code exit status 0', 'script returned exit code 0'],
    },
    {
      id: 'ci/task-runner-failed',
      kind: 'failure',
      // turbo's and nx's verdict naming the task that failed, and jest exiting on no tests.
      pattern:
        /^(?:\S+#\S+: command \(.*\).* exited \(\d+\)|\s*(?:ERROR\s+)?run failed: command\s+exited \(\d+\)|\s*(?:>\s+)?NX\s+(?:Running target \S+ for (?:project \S+|\d+ projects?) failed|\S+ failed)|Failed tasks:|No tests found, exiting with code [1-9])/,
      marks: ['exited \\(', 'NX ', 'Failed tasks', 'No tests found'],
      middle: ['exited \\(', 'Failed tasks', 'No tests found', 'NX   '],
      examples: [
        '@shop/web#test: command (/repo/apps/web) /usr/bin/pnpm run test exited (1)',
        ' ERROR  run failed: command  exited (1)',
        ' >  NX   Running target test for project web failed',
        'Failed tasks:',
        'No tests found, exiting with code 1',
      ],
      counterExamples: [
        'NX   Successfully ran target test for project web',
        'No tests found, exiting with code 0',
      ],
    },
    {
      id: 'ci/maven-goal-failed',
      kind: 'failure',
      // Maven's verdict, under its level.
      pattern: /^(?:\[(?:ERROR|INFO)\] )?(?:Failed to execute goal |BUILD FAILURE$)/,
      marks: ['Failed to execute goal', 'BUILD FAILURE'],
      middle: ['Failed to execute goal', 'BUILD FAILURE'],
      examples: [
        '[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on project shop: There are test failures.',
        '[INFO] BUILD FAILURE',
      ],
      counterExamples: ['[INFO] BUILD SUCCESS'],
    },
  ],
};
