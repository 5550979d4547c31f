import { describe, expect, it } from 'vitest';
import { actionsLog } from '../test-support/ci-logs.js';
import { ciStructure } from './ci-structure.js';
import { CI_RULES } from './packs/index.js';

// The rule each line of a log is named by, as the layout reads it alone (no echo state).
const ruleOf = (line: string) => CI_RULES.find((r) => r.role !== 'echo' && r.pattern.test(line))?.id;

// Generated from the data: one test per rule, named by its id.
describe('CI layout rules', () => {
  for (const rule of CI_RULES)
    it(`${rule.id}: names its examples, none of its counter-examples`, () => {
      expect(rule.examples.length).toBeGreaterThan(0);
      expect(rule.pattern.flags, 'flagless').toBe('');
      for (const example of rule.examples) {
        expect(rule.pattern.test(example), example).toBe(true);
        if (rule.role !== 'echo') expect(ruleOf(example), example).toBe(rule.id);
      }
      for (const counter of rule.counterExamples ?? [])
        expect(rule.pattern.test(counter), counter).toBe(false);
    });
  it('has one rule per id', () => {
    expect(new Set(CI_RULES.map((r) => r.id)).size).toBe(CI_RULES.length);
  });
});

describe('ciStructure', () => {
  it('reads a GitHub Actions job: set-up and clean-up as chores, the echoed script, the step that failed and its exit', () => {
    const log = actionsLog(['src/pay.ts(3,7): error TS2322: Type string is not assignable to type number.']);
    const ci = ciStructure(log);
    const lines = log.split('\n');
    const at = (text: string) => lines.findIndex((l) => l.endsWith(text));
    expect(ci?.failed).toMatchObject({
      line: at('##[group]Run if ! command -v tsc; then'),
      rule: 'actions/run-group',
    });
    expect(ci?.exits.map((e) => e.line)).toEqual([at('##[error]Process completed with exit code 2.')]);
    expect(ci?.stamped).toBe(true);
    // Set-up up to the first run step, checkout's group, every echoed line, the clean-up.
    for (const text of [
      'Hosted Compute Agent',
      'Syncing repository: acme/shop',
      'shell: /usr/bin/bash -e {0}',
      "No such container: 1f3a2b (it's fine)",
    ])
      expect(ci?.chore(at(text)), text).toBe(true);
    expect(
      ci?.chore(at('\x1b[36;1m  echo "::error ::tsc is not installed, error: cannot type-check"\x1b[0m')),
    ).toBe(true);
    // The steps' commands and their output are not.
    for (const text of [
      '##[group]Run npm ci',
      'added 812 packages in 14s',
      'error TS2322: Type string is not assignable to type number.',
    ])
      expect(ci?.chore(at(text)), text).toBe(false);
    expect(ci?.start).toBe(at('##[group]Run if ! command -v tsc; then'));
    expect(ci?.end).toBe(at('##[error]Process completed with exit code 2.'));
  });

  it('reads GitLab sections, Jenkins pipelines, Azure tasks, Buildkite groups and BuildKit steps', () => {
    const gitlab = [
      'Running with gitlab-runner 17.0.0 (44feccdf)',
      'section_start:1718000000:prepare_executor\r\x1b[0K\x1b[0K\x1b[36;1mPreparing the "docker" executor\x1b[0;m',
      'Using docker image sha256:0a1b for python:3.12 ...',
      'section_end:1718000010:prepare_executor\r\x1b[0K',
      'section_start:1718000100:step_script\r\x1b[0K\x1b[0K\x1b[36;1mExecuting "step_script" stage of the job script\x1b[0;m',
      '\x1b[32;1m$ pytest -q\x1b[0;m',
      'FAILED tests/test_pay.py::test_charge - AssertionError: assert 0 == 1',
      'section_end:1718000200:step_script\r\x1b[0K',
      'section_start:1718000300:cleanup_file_variables\r\x1b[0K\x1b[0K\x1b[36;1mCleaning up project directory and file based variables\x1b[0;m',
      'section_end:1718000301:cleanup_file_variables\r\x1b[0K',
      '\x1b[31;1mERROR: Job failed: exit code 1\x1b[0;m',
    ].join('\n');
    const g = ciStructure(gitlab);
    expect(g?.failed?.rule).toBe('gitlab/script-section');
    expect(g?.exits.map((e) => e.rule)).toEqual(['gitlab/job-failed']);
    expect([2, 6, 8].map((l) => g?.chore(l))).toEqual([true, false, true]);

    const jenkins = [
      '[Pipeline] stage',
      '[Pipeline] { (Test)',
      '[Pipeline] sh',
      '+ ./gradlew test',
      '> Task :app:test FAILED',
      '[Pipeline] }',
      'ERROR: script returned exit code 1',
    ].join('\n');
    const j = ciStructure(jenkins);
    expect(j?.failed).toMatchObject({ line: 2, rule: 'jenkins/sh' });
    expect([0, 4, 5].map((l) => j?.chore(l))).toEqual([true, false, true]);

    const azure = [
      '##[section]Starting: Initialize job',
      'Agent name: Azure Pipelines 3',
      '##[section]Starting: Run tests',
      'dotnet test',
      'Failed!  - Failed: 1, Passed: 41',
      "##[error]Bash exited with code '1'.",
      '##[section]Finishing: Run tests',
    ].join('\n');
    const a = ciStructure(azure);
    expect(a?.failed?.rule).toBe('azure/task');
    expect(a?.exits[0]?.rule).toBe('azure/task-exit');
    expect([1, 4, 6].map((l) => a?.chore(l))).toEqual([true, false, true]);

    const buildkite = [
      '~~~ Preparing working directory',
      '$ git clone -v -- git@github.com:acme/shop.git .',
      '+++ :rspec: Running specs',
      'rspec ./spec/pay_spec.rb:12 # Pay charges the card',
      '🚨 Error: The command exited with status 1',
    ].join('\n');
    const b = ciStructure(buildkite);
    expect(b?.failed?.line).toBe(2);
    expect(b?.chore(1)).toBe(true);

    const docker = [
      '#1 [internal] load build definition from Dockerfile',
      '#5 [build 3/6] RUN npm ci',
      '#5 DONE 12.3s',
      '#6 [build 4/6] RUN npm run build',
      '#6 1.234 src/app.ts(3,7): error TS2322',
      '#6 ERROR: process "/bin/sh -c npm run build" did not complete successfully: exit code: 2',
    ].join('\n');
    const d = ciStructure(docker);
    expect(d?.steps.map((s) => s.line)).toEqual([1, 3]);
    expect([0, 2, 4].map((l) => d?.chore(l))).toEqual([true, true, false]);
  });

  it('leaves a text that is no CI log alone', () => {
    expect(ciStructure('compiling\nsrc/a.ts:3:7 - error TS2322\nFound 1 error.\n')).toBeUndefined();
  });
});
