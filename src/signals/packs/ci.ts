import type { CiRule } from '../ci-rule.js';

/**
 * How CI systems lay out a job's log, as data: where the runner's set-up and clean-up are
 * (chores), where a step starts and names its command, the lines that echo a step's script
 * rather than run it, lines of pure bookkeeping, and the line that says a step failed. Tried on a
 * line without its CI timestamp (colour codes left in: GitHub Actions echoes a script in cyan).
 * ci-structure.ts reads a log with them; signal rules (packs/ci-signals.ts) name the errors.
 */
export const CI_RULES: readonly CiRule[] = [
  {
    id: 'actions/runner-setup',
    role: 'chore',
    // The job's first lines: the runner, its image, the token's permissions, the actions
    // downloaded; and a setup action's own group (checkout, setup-node, cache restore).
    pattern:
      /^(?:Current runner version|##\[group\](?:Runner Image|Operating System|GITHUB_TOKEN Permissions|Run actions\/(?:checkout|setup-\w+|cache|download-artifact|upload-artifact)@)|Prepare workflow directory|Prepare all required actions|Getting action download info|Download action repository|A job started hook has been configured)/,
    examples: [
      "Current runner version: '2.321.0'",
      '##[group]Runner Image Provisioner',
      '##[group]Operating System',
      '##[group]Run actions/checkout@v4',
      '##[group]Run actions/setup-python@v5',
      "Download action repository 'actions/checkout@v4' (SHA:11bd71901bbe5b1630ceea73d27597364c9af683)",
    ],
    counterExamples: ['##[group]Run npm test', '##[group]Run ./gradlew check'],
  },
  {
    id: 'actions/job-name',
    role: 'name',
    // The job's name (with its matrix values), among the set-up lines.
    pattern: /^Complete job name: \S/,
    examples: ['Complete job name: test (ubuntu-latest, 3.12)', 'Complete job name: Run prettier'],
    counterExamples: ['Complete job'],
  },
  {
    id: 'jenkins/stage-name',
    role: 'name',
    pattern: /^\[Pipeline\] \{ \(.+\)$/,
    examples: ['[Pipeline] { (Integration tests)', '[Pipeline] { (Build)'],
    counterExamples: ['[Pipeline] {'],
  },
  {
    id: 'actions/post-job',
    role: 'chore',
    // After the steps: each action's post step, then the runner's own clean-up.
    pattern:
      /^(?:Post job cleanup\.|##\[group\]Run actions\/\S+ post|Cleaning up orphan processes|Evaluate and set job outputs)/,
    examples: ['Post job cleanup.', 'Cleaning up orphan processes'],
    counterExamples: ['Cleaning up the test database'],
  },
  {
    id: 'actions/run-group',
    role: 'step',
    echoes: true,
    // A `run:` step: its group opens with the command's first line; the script, `shell:` and
    // `env:` follow, echoed, up to `##[endgroup]`.
    pattern: /^##\[group\]Run (?!actions\/)\S/,
    examples: [
      '##[group]Run npm test -- --ci',
      '##[group]Run cargo test --workspace',
      '##[group]Run pre-commit run --all-files',
    ],
    counterExamples: ['##[group]Runner Image Provisioner', '##[group]Run actions/checkout@v4'],
  },
  {
    id: 'actions/script-echo',
    role: 'echo',
    // The echoed script (cyan), its shell, its environment (`env:` and two-space `KEY: value`),
    // and the group's end.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: Actions echoes the script in cyan
    pattern: /^(?:(?:\x1b|\^\[)\[36;1m|shell: \S|env:$|with:$| {2}[\w-]+: |##\[endgroup\])/,
    examples: [
      '\x1b[36;1mnpm ci && npm test\x1b[0m',
      '\x1b[36;1m  echo "::error ::$cmd failed"\x1b[0m',
      'shell: /usr/bin/bash -e {0}',
      'env:',
      '  NODE_OPTIONS: --max-old-space-size=4096',
      '##[endgroup]',
    ],
    counterExamples: ['npm ERR! code ELIFECYCLE', 'FAIL src/pay.test.ts'],
  },
  {
    id: 'actions/step-exit',
    role: 'exit',
    // The step's last word when its command failed.
    pattern:
      /^##\[error\](?:Process completed with exit code [1-9]\d*|The operation was canceled|The process '.*' failed with exit code \d+)/,
    examples: [
      '##[error]Process completed with exit code 1.',
      '##[error]Process completed with exit code 137.',
      "##[error]The process '/usr/bin/git' failed with exit code 128",
    ],
    counterExamples: ['##[error]src/pay.ts(3,7): error TS2322', 'Process completed with exit code 0.'],
  },
  {
    id: 'gitlab/chore-section',
    role: 'chore',
    // GitLab's runner: preparing the executor, fetching sources, caches and artifacts.
    pattern:
      // biome-ignore lint/suspicious/noControlCharactersInRegex: GitLab erases the line before a section
      /^(?:\x1b\[0K)?section_start:\d+:(?:prepare_executor|prepare_script|resolve_secrets|get_sources|restore_cache|download_artifacts|archive_cache|upload_artifacts_on_(?:success|failure)|cleanup_file_variables)\b/,
    examples: [
      'section_start:1718000000:prepare_executor\r\x1b[0K\x1b[0K\x1b[36;1mPreparing the "docker" executor\x1b[0;m',
      'section_start:1718000050:get_sources\r\x1b[0K\x1b[0K\x1b[36;1mGetting source from Git repository\x1b[0;m',
      'section_start:1718000300:cleanup_file_variables\r\x1b[0K\x1b[0K\x1b[36;1mCleaning up project directory and file based variables\x1b[0;m',
    ],
    counterExamples: [
      'section_start:1718000100:step_script\r\x1b[0K\x1b[0K\x1b[36;1mExecuting "step_script" stage of the job script\x1b[0;m',
    ],
  },
  {
    id: 'gitlab/script-section',
    role: 'step',
    // biome-ignore lint/suspicious/noControlCharactersInRegex: GitLab erases the line before a section
    pattern: /^(?:\x1b\[0K)?section_start:\d+:(?:step_script|build_script|after_script|[\w-]+)\b/,
    examples: [
      'section_start:1718000100:step_script\r\x1b[0K\x1b[0K\x1b[36;1mExecuting "step_script" stage of the job script\x1b[0;m',
    ],
    counterExamples: ['section_end:1718000200:step_script\r\x1b[0K'],
  },
  {
    id: 'gitlab/job-failed',
    role: 'exit',
    pattern:
      // biome-ignore lint/suspicious/noControlCharactersInRegex: GitLab colours the verdict
      /^(?:\x1b\[[\d;]*m)*ERROR: Job failed: (?:exit code [1-9]|command terminated with exit code [1-9])/,
    examples: [
      '\x1b[31;1mERROR: Job failed: exit code 1\x1b[0;m',
      'ERROR: Job failed: command terminated with exit code 2',
    ],
    counterExamples: ['Job succeeded'],
  },
  {
    id: 'buildkite/collapsed-group',
    role: 'chore',
    // Buildkite's agent: `~~~` opens a collapsed group (its own set-up: hooks, checkout).
    pattern:
      /^~~~ (?:Preparing|Running (?:global|plugin|local) .*hook|Setting up|Cleaning up|Fetching|Checking out|Running agent)/,
    examples: [
      '~~~ Preparing working directory',
      '~~~ Running global environment hook',
      '~~~ Running plugin docker-compose pre-command hook',
    ],
    counterExamples: ['+++ Running tests', '--- :jest: Run tests'],
  },
  {
    id: 'buildkite/group',
    role: 'step',
    // `---` opens a group and `+++` one shown expanded (where the failure is, by convention).
    pattern: /^(?:\+\+\+|---) (?::[\w+-]+:|[A-Z][a-z]+ing\b)/,
    examples: ['+++ :rspec: Running specs', '--- :docker: Building image', '+++ Running tests'],
    counterExamples: ['--- FAIL: TestCharge (0.00s)', '--- a/src/pay.ts'],
  },
  {
    id: 'buildkite/command-exit',
    role: 'exit',
    pattern: /^(?:🚨 )?Error: The command exited with status [1-9]\d*/,
    examples: ['🚨 Error: The command exited with status 1', 'Error: The command exited with status 2'],
    counterExamples: ['The command exited with status 0'],
  },
  {
    id: 'circleci/step-exit',
    role: 'exit',
    // CircleCI: the step's verdict under its output.
    pattern: /^Exited with code (?:exit status )?[1-9]\d*/,
    examples: ['Exited with code exit status 1', 'Exited with code 2'],
    counterExamples: ['Exited with code exit status 0'],
  },
  {
    id: 'circleci/spin-up',
    role: 'chore',
    pattern:
      /^(?:Spin up environment|Preparing environment variables|Checkout code|Restoring cache|Saving cache|Uploading artifacts)$/,
    examples: ['Spin up environment', 'Preparing environment variables', 'Restoring cache'],
    counterExamples: ['Run tests'],
  },
  {
    id: 'jenkins/pipeline',
    role: 'noise',
    // The Pipeline plugin's bookkeeping: blocks opened and closed, stages entered.
    pattern:
      /^\[Pipeline\] (?:[{}](?!\S)|(?:\/\/ \w+|stage|node|withEnv|timeout|dir|script|echo|catchError|withCredentials|checkout|wrap|ansiColor|properties)\b)/,
    examples: [
      '[Pipeline] {',

      '[Pipeline] }',
      '[Pipeline] // stage',
      '[Pipeline] stage',
      '[Pipeline] node',
      '[Pipeline] withEnv',
    ],
    counterExamples: ['[Pipeline] sh', 'ERROR: script returned exit code 1'],
  },
  {
    id: 'jenkins/sh',
    role: 'step',
    pattern: /^\[Pipeline\] (?:sh|bat|powershell)$/,
    examples: ['[Pipeline] sh', '[Pipeline] bat'],
    counterExamples: ['[Pipeline] {'],
  },
  {
    id: 'jenkins/script-exit',
    role: 'exit',
    pattern: /^ERROR: script returned exit code [1-9]\d*/,
    examples: ['ERROR: script returned exit code 1'],
    counterExamples: ['script returned exit code 0'],
  },
  {
    id: 'azure/chore-section',
    role: 'chore',
    // Azure Pipelines: `##[section]Starting:` opens each task; the agent's own ones are chores.
    pattern:
      /^##\[section\]Starting: (?:Initialize job|Initialize containers|Checkout|Post-job|Finalize Job|Finalize build)/,
    examples: [
      '##[section]Starting: Initialize job',
      '##[section]Starting: Checkout shop@main to s',
      '##[section]Starting: Finalize Job',
    ],
    counterExamples: ['##[section]Starting: Run tests'],
  },
  {
    id: 'azure/task',
    role: 'step',
    pattern: /^##\[section\]Starting: \S/,
    examples: ['##[section]Starting: Run tests', '##[section]Starting: Bash'],
    counterExamples: ['##[section]Finishing: Run tests'],
  },
  {
    id: 'azure/bookkeeping',
    role: 'noise',
    // Logging commands that set variables or upload, and a task's end.
    pattern: /^(?:##vso\[(?!task\.logissue type=(?:error|warning))|##\[section\]Finishing: |##\[debug\])/,
    examples: [
      '##vso[task.setvariable variable=version]1.2.3',
      '##[section]Finishing: Run tests',
      '##[debug]Evaluating condition',
    ],
    counterExamples: ['##vso[task.logissue type=error]Tests failed'],
  },
  {
    id: 'azure/task-exit',
    role: 'exit',
    pattern: /^##\[error\](?:Bash|PowerShell|Cmd|Script) (?:exited|failed) with (?:exit )?code:? '?[1-9]\d*/,
    examples: [
      "##[error]Bash exited with code '1'.",
      "##[error]PowerShell exited with code '1'.",
      '##[error]Script failed with exit code: 2',
    ],
    counterExamples: ["##[error]Bash exited with code '0'."],
  },
  {
    id: 'pre-commit/setup',
    role: 'noise',
    // pre-commit setting up its hooks' environments before it runs them (pre-commit/pre-commit
    // #1458, #2897; in an Actions log `[INFO]` is coloured).
    pattern:
      // biome-ignore lint/suspicious/noControlCharactersInRegex: pre-commit colours its level
      /^\[INFO\](?:\x1b\[[\d;]*m)* (?:Initializing environment for |Installing environment for |Once installed this environment will be reused\.|This may take a few minutes\.\.\.)/,
    examples: [
      '[INFO] Initializing environment for https://github.com/asottile/pyupgrade.',
      '[INFO]\x1b[m Installing environment for https://github.com/pre-commit/pre-commit-hooks.',
      '[INFO] Once installed this environment will be reused.',
      '[INFO] This may take a few minutes...',
    ],
    counterExamples: [
      '[INFO] Restored changes from /home/me/.cache/pre-commit/patch1718000000.',
      'mypy.....Failed',
    ],
  },
  {
    id: 'docker/buildkit-progress',
    role: 'noise',
    // BuildKit's plain progress: layers pulled, cached, transferred, done.
    pattern:
      /^#\d+ (?:DONE \d|CACHED$|sha256:[0-9a-f]{8,}|extracting sha256:|transferring (?:context|dockerfile):|resolve [\w./-]+@sha256:|\[internal\] load (?:build definition|metadata|\.dockerignore))/,
    examples: [
      '#5 DONE 0.4s',
      '#7 CACHED',
      '#9 sha256:4f4fb700ef54461cfa02571ae0db9a0dc1e0cdb5577484a6d75e68dc38e8acc1 32B / 32B 0.2s done',
      '#4 transferring context: 2.35MB 0.1s done',
    ],
    counterExamples: [
      '#12 ERROR: process "/bin/sh -c npm ci" did not complete successfully: exit code: 1',
      '#12 [build 4/7] RUN npm ci',
    ],
  },
  {
    id: 'docker/buildkit-step',
    role: 'step',
    pattern: /^#\d+ \[[\w.-]+(?: \d+\/\d+)?\] (?:RUN|COPY|ADD|FROM|WORKDIR) /,
    examples: ['#12 [build 4/7] RUN npm ci', '#8 [stage-1 2/3] COPY --from=build /app/dist /srv'],
    counterExamples: ['#12 DONE 3.1s'],
  },
];
