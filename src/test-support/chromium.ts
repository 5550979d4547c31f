import { existsSync } from 'node:fs';

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
