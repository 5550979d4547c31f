#!/usr/bin/env node
// Imports direct, not through indexes: it is on a start path (see DEVELOPERS.md, Start time).
import { runCli } from './cli/main.js';

// A reader that goes away (`spillway snip big.log | head`) is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  stdinIsTTY: Boolean(process.stdin.isTTY),
  env: process.env,
});
