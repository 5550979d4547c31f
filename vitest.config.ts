import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Every temporary folder a test (or a process it starts) makes goes under one root, which the
// global teardown removes: a run leaves nothing in the system temp folder, even a failed one.
process.env.SPILLWAY_TEST_TMP ??= mkdtempSync(join(tmpdir(), 'spillway-test-'));

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { TMPDIR: process.env.SPILLWAY_TEST_TMP },
    globalSetup: ['src/test-support/temp-root.ts'],
  },
});
