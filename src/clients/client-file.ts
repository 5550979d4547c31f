import { realpath } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import { openRegularFile } from '../home/index.js';
import { MAX_CAPTURE_BYTES } from '../store/index.js';
import { OutputCapture } from '../text/index.js';

/** A client's saved output, read, or why it was not. */
export type ClientFile = { bytes: Buffer } | { refused: string };

/**
 * Reads the full output a client saved to a file when it sent the model only a preview (Claude
 * Code's `<persisted-output>`). The path comes from the client's tool result, which a command
 * or a model can shape, so the file is read only when: it is absolute and, with every link
 * resolved, inside `root` (the client's own output folder); it is not itself a link (opened
 * with O_NOFOLLOW); it is a regular file owned by this user; and it begins with `preview` (what
 * the client showed of it: Claude Code shows the head) or ends with `tail` (opencode shows the
 * tail). Over 64 MiB, the first and last 32 MiB are kept.
 *
 * @example
 * const file = await readClientFile(path, { root: '/home/u/.claude/projects', preview });
 * if ('bytes' in file) collapse(file.bytes);
 */
export async function readClientFile(
  path: string,
  options: { root: string; preview?: string; tail?: string },
): Promise<ClientFile> {
  if (!isAbsolute(path)) return { refused: 'the path is not absolute' };
  let real: string;
  let root: string;
  try {
    [real, root] = await Promise.all([realpath(path), realpath(options.root)]);
  } catch {
    return { refused: 'the file or the client folder does not exist' };
  }
  if (!real.startsWith(root + sep)) return { refused: `the file is not inside ${options.root}` };
  const opened = await openRegularFile(path);
  if ('refused' in opened) return { refused: `cannot read it: ${opened.refused}` };
  const { handle, info: stat } = opened;
  try {
    if (process.getuid && stat.uid !== process.getuid()) return { refused: 'it is owned by another user' };
    const capture = new OutputCapture(MAX_CAPTURE_BYTES);
    for await (const chunk of handle.createReadStream({ autoClose: false })) capture.push(chunk as Buffer);
    const bytes = capture.joined(
      (dropped) => `\n[${dropped} bytes in the middle were past the 63 MiB limit]\n`,
    );
    // What the client showed must be the file's own beginning or end: a result that merely names
    // a path (another session's file, a key) never makes spillway read it. Neither given: the
    // caller vouches that the path came from the client itself, not from the output.
    if (options.preview !== undefined) {
      const cut = options.preview.slice(0, 4096);
      const preview = Buffer.from(/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut);
      if (preview.length === 0 || !bytes.subarray(0, preview.length).equals(preview))
        return { refused: 'the preview the client sent is not the beginning of this file' };
    } else if (options.tail !== undefined) {
      const cut = options.tail.slice(-4096);
      const tail = Buffer.from(/^[\uDC00-\uDFFF]/.test(cut) ? cut.slice(1) : cut);
      if (tail.length === 0 || !bytes.subarray(bytes.length - tail.length).equals(tail))
        return { refused: 'the tail the client sent is not the end of this file' };
    }
    return { bytes };
  } finally {
    await handle.close();
  }
}
