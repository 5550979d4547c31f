import { rmSync } from 'node:fs';

/**
 * vitest's global setup: the teardown removes the temporary root every test's TMPDIR points
 * into (vitest.config.ts makes it), whatever the tests left there.
 */
export default function setup(): () => void {
  return () => {
    const root = process.env.SPILLWAY_TEST_TMP;
    // Retries: a process a test started may still be removing its own files in there.
    if (root) rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  };
}
