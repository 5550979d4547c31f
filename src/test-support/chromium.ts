import { existsSync } from 'node:fs';
import { pinnedLibrary } from './client-install.js';

/** Debian's Chromium, which .ci/run installs when it is missing. */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export const CHROMIUM_MISSING =
  'Chromium not found at /usr/bin/chromium; install Debian\'s "chromium" package (.ci/run does) to run the browser test';

/** Flags for a sandboxed, offline, headless Chromium on this kind of machine. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const playwright = await pinnedLibrary('playwright-core');

/** Why a browser test cannot run here (no Chromium, or no pinned playwright-core), if it cannot. */
export const BROWSER_MISSING = !CHROMIUM
  ? CHROMIUM_MISSING
  : 'missing' in playwright
    ? playwright.missing
    : undefined;

/**
 * Headless Chromium driven by the pinned playwright-core (typed loosely: it loads from the
 * cache at run time, without its types).
 *
 * @example
 * const browser = await launchChromium();
 * try { const page = await browser.newPage(); } finally { await browser.close(); }
 */
// biome-ignore lint/suspicious/noExplicitAny: playwright-core loads from the pinned cache, without its types
export async function launchChromium(extraArgs: readonly string[] = []): Promise<any> {
  if (BROWSER_MISSING || !('module' in playwright)) throw new Error(BROWSER_MISSING);
  const chromium = playwright.module.chromium as { launch(o: object): Promise<unknown> };
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs] });
}
