import type { SpillwayCommand } from '../spillway-command.js';

/**
 * The opencode plugin setup writes (`plugin/spillway.js`, plain JavaScript: opencode loads it
 * with Bun). After a `bash` call whose output opencode cut (it keeps the last 2,000 lines or
 * 50 KB and saves the whole to a file), it hands the call to `spillway hook opencode` and adds
 * the hook's note (the lines that matter from the part left out, and the recall id) after what
 * opencode shows. Every other call costs one comparison: no process is started. A hook that
 * fails or takes over two minutes leaves the output as it was.
 *
 * @example
 * writeFileSync(pluginPath, opencodePlugin(spillwayCommand(), {}));
 */
export function opencodePlugin(spillway: SpillwayCommand, env: Record<string, string>): string {
  const command = JSON.stringify([spillway.command, ...spillway.args, 'hook', 'opencode']);
  return `// Written by spillway setup opencode (undo: spillway setup opencode --undo).
import { spawn } from 'node:child_process';

const COMMAND = ${command};
const ENV = ${JSON.stringify(env)};

function hook(call) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(COMMAND[0], COMMAND.slice(1), {
        env: { ...process.env, ...ENV },
        stdio: ['pipe', 'pipe', 'ignore'],
      });
    } catch {
      return resolve(undefined);
    }
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 120000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('error', () => resolve(undefined));
    child.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(out.trim() ? JSON.parse(out) : undefined);
      } catch {
        resolve(undefined);
      }
    });
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(call));
  });
}

export const Spillway = async () => ({
  'tool.execute.after': async (input, output) => {
    const metadata = output && output.metadata;
    if (input.tool !== 'bash' || !metadata || metadata.truncated !== true) return;
    if (typeof metadata.outputPath !== 'string' || typeof output.output !== 'string') return;
    const answer = await hook({
      tool: input.tool,
      sessionID: input.sessionID,
      callID: input.callID,
      args: input.args,
      output: output.output,
      outputPath: metadata.outputPath,
    });
    if (answer && typeof answer.additionalContext === 'string')
      output.output = output.output + '\\n\\n' + answer.additionalContext;
  },
});
`;
}
