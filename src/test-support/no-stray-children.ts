import { readdirSync, readFileSync } from 'node:fs';
import { afterAll } from 'vitest';

/** The processes whose parent is `pid`, with their command lines (Linux: /proc; elsewhere none). */
function childrenOf(pid: number): { pid: number; command: string }[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: { pid: number; command: string }[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The parent pid is the second field after the parenthesised command name.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== pid) continue;
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue; // exited, not yet reaped
      out.push({ pid: Number(entry), command });
    } catch {}
  }
  return out;
}

// vitest's setup file: after each test file, no process it started may still run. One that does
// is killed, and the file fails with its command line, so a test that leaks a proxy or a server
// is caught where it leaks (not 20 minutes later by someone's `ps`).
afterAll(async () => {
  let stray = childrenOf(process.pid);
  for (let waited = 0; stray.length > 0 && waited < 3000; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
    stray = childrenOf(process.pid);
  }
  if (stray.length === 0) return;
  for (const child of stray)
    try {
      process.kill(child.pid, 'SIGKILL');
    } catch {}
  throw new Error(
    `${stray.length} child process(es) outlived this file's tests (now killed):\n${stray.map((c) => `  ${c.pid} ${c.command.slice(0, 200)}`).join('\n')}`,
  );
});
