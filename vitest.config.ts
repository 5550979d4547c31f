import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Every temporary folder a test (or a process it starts) makes goes under one root, which the
// global teardown removes: a run leaves nothing in the system temp folder, even a failed one.
if (!process.env.SPILLWAY_TEST_TMP) {
  const root = mkdtempSync(join(tmpdir(), 'spillway-test-'));
  process.env.SPILLWAY_TEST_TMP = root;
  // A run that finds no test file never reaches the teardown: the root goes when vitest exits.
  process.on('exit', () => rmSync(root, { recursive: true, force: true }));
}

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    reporters: ['default', './src/test-support/skip-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // SPILLWAY_HOME too: no test, and no process a test starts, touches the real ~/.spillway.
    env: {
      TMPDIR: process.env.SPILLWAY_TEST_TMP,
      SPILLWAY_HOME: join(process.env.SPILLWAY_TEST_TMP, 'spillway-home'),
    },
    globalSetup: ['src/test-support/temp-root.ts'],
    setupFiles: ['src/test-support/no-stray-children.ts'],
  },
});
