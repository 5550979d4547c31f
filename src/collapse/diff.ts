import { diffCompactedHeader } from '../text/index.js';
import type { Tokenizer } from '../text/tokenizers/index.js';
import { largestFitting } from './bisect.js';

// Larger diffs are not split into files here (the line and character windows handle them).
const MAX_DIFF_CHARS = 4 * 1024 * 1024;
// What may come before the first file (git show's commit and message) and still be a diff.
const MAX_PREAMBLE_LINES = 60;
// Tries at one more line for single hunks, after the most for all alike (each a count of the
// output, which is within the budget).
const MAX_EXTRA_TRIES = 48;
const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;
// A commit of `git log -p` (its hash, author, date and message come before its files).
const COMMIT = /^commit [0-9a-f]{7,64}\b/;
// File header lines a reader needs: which file, and whether it was added, removed or renamed.
// `index` lines, and `---`/`+++` when a `diff --git` line names the file, are left out.
const KEPT_HEADER =
  /^(?:diff --git |new file mode|deleted file mode|rename (?:from|to) |similarity index|Binary files )/;

interface Hunk {
  header: string;
  lines: string[];
}

interface DiffFile {
  /** The commits `git log -p` printed before this file (their header and message), if any. */
  commits: string[];
  /** Its lines in the list of files: its commits' hashes and subjects, `path | +A -D`. */
  listed: string[];
  header: string[];
  hunks: Hunk[];
  added: number;
  removed: number;
}

/** A unified diff split into its files and hunks, or undefined when the text is not one. */
interface ParsedDiff {
  preamble: string[];
  files: DiffFile[];
  added: number;
  removed: number;
  /** Lines in all hunks together. */
  hunkLines: number;
}

/** The hunk at `at` (its header line), with the lines its counts say it has; undefined if short. */
function readHunk(lines: string[], at: number): { hunk: Hunk; next: number } | undefined {
  const header = lines[at] as string;
  const m = HUNK_HEADER.exec(header);
  if (!m) return undefined;
  let before = m[1] === undefined ? 1 : Number(m[1]);
  let after = m[2] === undefined ? 1 : Number(m[2]);
  const body: string[] = [];
  let i = at + 1;
  while ((before > 0 || after > 0) && i < lines.length) {
    const line = lines[i] as string;
    const c = line[0];
    // An empty line is a context line whose space an editor or a tool trimmed.
    if (c === ' ' || line === '') {
      before--;
      after--;
    } else if (c === '-') before--;
    else if (c === '+') after--;
    else if (c !== '\\') return undefined;
    body.push(line);
    i++;
  }
  if (before !== 0 || after !== 0) return undefined;
  // "\ No newline at end of file" may follow the last line.
  while (i < lines.length && (lines[i] as string).startsWith('\\')) body.push(lines[i++] as string);
  return { hunk: { header, lines: body }, next: i };
}

/** Splits a unified diff (git diff, git show, git log -p, diff -u) into files and hunks; exact or nothing. */
function parseDiff(text: string): ParsedDiff | undefined {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const isGitFile = (i: number) => (lines[i] as string).startsWith('diff --git ');
  const isPlainFile = (i: number) =>
    (lines[i] as string).startsWith('--- ') && (lines[i + 1] ?? '').startsWith('+++ ');
  let i = 0;
  while (i < lines.length && i <= MAX_PREAMBLE_LINES && !isGitFile(i) && !isPlainFile(i)) i++;
  if (i >= lines.length || i > MAX_PREAMBLE_LINES) return undefined;
  // In git's diffs a file starts at its `diff --git` line, and its `---`/`+++` lines are its header.
  const isFileStart = isGitFile(i) ? isGitFile : isPlainFile;
  const diff: ParsedDiff = { preamble: lines.slice(0, i), files: [], added: 0, removed: 0, hunkLines: 0 };
  const isCommit = (i: number) => COMMIT.test(lines[i] as string);
  let commits: string[] = [];
  while (i < lines.length) {
    // git log -p ends each commit's diff with an empty line.
    if (lines[i] === '' && i + 1 < lines.length && isCommit(i + 1)) i++;
    if (isCommit(i)) {
      const start = i++;
      while (i < lines.length && !isFileStart(i) && !isCommit(i) && i - start <= MAX_PREAMBLE_LINES) i++;
      if (i - start > MAX_PREAMBLE_LINES) return undefined;
      commits.push(...lines.slice(start, i));
      continue;
    }
    if (!isFileStart(i)) return undefined;
    const file: DiffFile = {
      commits,
      listed: [],
      header: [lines[i++] as string],
      hunks: [],
      added: 0,
      removed: 0,
    };
    commits = [];
    while (i < lines.length && !isFileStart(i) && !isCommit(i) && !HUNK_HEADER.test(lines[i] as string))
      file.header.push(lines[i++] as string);
    while (i < lines.length && HUNK_HEADER.test(lines[i] as string)) {
      const read = readHunk(lines, i);
      if (!read) return undefined;
      file.hunks.push(read.hunk);
      diff.hunkLines += read.hunk.lines.length;
      for (const line of read.hunk.lines) {
        if (line[0] === '+') file.added++;
        else if (line[0] === '-') file.removed++;
      }
      i = read.next;
    }
    diff.added += file.added;
    diff.removed += file.removed;
    file.listed = [...commitSummary(file.commits), `${fileName(file)} | +${file.added} -${file.removed}`];
    diff.files.push(file);
  }
  // Commits with no file after them (a merge, an empty commit) at the end: not a diff's shape.
  return commits.length > 0 ? undefined : diff;
}

/** A commit's hash line and the first line of its message, for the list of files. */
function commitSummary(commits: readonly string[]): string[] {
  const out: string[] = [];
  let subject = false;
  for (const line of commits) {
    if (COMMIT.test(line)) {
      out.push(line);
      subject = true;
    } else if (subject && line.startsWith('    ') && line.trim() !== '') {
      out.push(line);
      subject = false;
    }
  }
  return out;
}

/** The header lines of a file that are shown: all of them for a plain `diff -u`. */
function shownHeader(file: DiffFile): string[] {
  if (!(file.header[0] as string).startsWith('diff --git ')) return file.header;
  return file.header.filter((line) => KEPT_HEADER.test(line));
}

/** The file a diff's file changes: the new path, or the old one when it was deleted. */
function fileName(file: DiffFile): string {
  const git = /^diff --git a\/.* b\/(.*)$/.exec(file.header[0] as string);
  if (git) return git[1] as string;
  const at = (prefix: string) =>
    file.header
      .find((line) => line.startsWith(prefix))
      ?.slice(4)
      .split('\t')[0];
  const after = at('+++ ');
  return (after === '/dev/null' ? at('--- ') : after)?.replace(/^[ab]\//, '') ?? '?';
}

/**
 * What a compacted diff shows: a list of its first `listed` files (`path | +A -D`, a count of
 * the rest), then its first `detailed` files in full but for their hunks, each cut to `keepOf`
 * of its lines.
 */
interface Plan {
  listed: number;
  detailed: number;
  keepOf: (hunk: Hunk) => number;
}

function render(diff: ParsedDiff, plan: Plan, id: string, path: string | undefined): string {
  const out: string[] = [];
  for (const file of diff.files.slice(0, plan.listed)) out.push(...file.listed);
  if (plan.listed > 0 && plan.listed < diff.files.length)
    out.push(`... and ${diff.files.length - plan.listed} more files`);
  let shown = 0;
  for (const file of diff.files.slice(0, plan.detailed)) {
    out.push(...file.commits, ...shownHeader(file));
    for (const hunk of file.hunks) shown += renderHunk(hunk, plan.keepOf(hunk), out);
  }
  const header = diffCompactedHeader(
    { files: diff.files.length, added: diff.added, removed: diff.removed, shown, total: diff.hunkLines },
    id,
    path,
  );
  return [header, ...diff.preamble, ...out].join('\n');
}

/**
 * A hunk's header and `keep` of its lines from its first change on (the unchanged lines before
 * it would spend the budget on what did not change), with counts where lines were left out.
 * Returns how many lines it showed.
 */
function renderHunk(hunk: Hunk, keep: number, out: string[]): number {
  out.push(hunk.header);
  const { lines } = hunk;
  let first = lines.findIndex((line) => line[0] === '+' || line[0] === '-');
  if (first < 0 || lines.length <= keep) first = 0;
  const end = Math.min(lines.length, first + keep);
  if (first > 0 && keep > 0) out.push(`... (${first} unchanged lines) ...`);
  out.push(...lines.slice(first, end));
  const rest = lines.length - (end - first) - (keep > 0 ? first : 0);
  if (rest > 0) out.push(`... (${rest} more lines of this hunk) ...`);
  return end - first;
}

/**
 * A unified diff compacted to a budget: the commit message before it, every file's header
 * (which file; added, removed or renamed) and every hunk's header, and the first lines of each
 * hunk, as many as fit for all hunks alike; a count stands where a hunk's lines were left out,
 * and a header names the recall id. When even the hunk headers do not fit, a list of the files
 * with what each adds and removes (as much of it as fits), then as many files as fit in the same
 * form. Undefined when the text is not a diff throughout (a diff with a test run after it is
 * not), or when not one file fits.
 *
 * @example
 * compactDiff(gitShowOutput, { budget: 2000, tokenizer, id })?.text;
 */
export function compactDiff(
  text: string,
  o: { budget: number; tokenizer: Tokenizer; id: string; path?: string | undefined },
): { text: string; calls: number } | undefined {
  if (text.length > MAX_DIFF_CHARS || !text.includes('\n@@ ')) return undefined;
  const diff = parseDiff(text);
  if (!diff) return undefined;
  let calls = 0;
  const fits = (plan: Plan) => {
    calls++;
    return o.tokenizer.countUpTo(render(diff, plan, o.id, o.path), o.budget) <= o.budget;
  };
  const none = () => 0;
  const all = diff.files.length;
  // Every file in detail when its hunk headers fit; else the list of every file (or as much of
  // it as fits), and after it as many files in detail as fit.
  let plan: Plan = { listed: 0, detailed: all, keepOf: none };
  if (!fits(plan)) {
    const listed = largestFitting(0, all + 1, (n) => fits({ listed: n, detailed: 0, keepOf: none }));
    if (listed === 0) return undefined;
    const detailed =
      listed < all ? 0 : largestFitting(0, all + 1, (n) => fits({ listed, detailed: n, keepOf: none }));
    plan = { listed, detailed, keepOf: none };
  }
  // The most lines per hunk that fit, the same for every hunk; then one more line for each
  // hunk in turn while it fits (a hunk whose next line is long does not hold the others back).
  const hunks = diff.files.slice(0, plan.detailed).flatMap((file) => file.hunks);
  const longest = hunks.reduce((n, hunk) => Math.max(n, hunk.lines.length), 0);
  const keep = largestFitting(0, longest + 1, (k) => fits({ ...plan, keepOf: () => k }));
  const kept = new Map(hunks.map((hunk) => [hunk, keep]));
  plan = { ...plan, keepOf: (hunk) => kept.get(hunk) ?? 0 };
  let open = hunks.filter((hunk) => hunk.lines.length > keep);
  for (let tries = 0; open.length > 0 && tries < MAX_EXTRA_TRIES; ) {
    open = open.filter((hunk) => {
      if (tries++ >= MAX_EXTRA_TRIES) return false;
      const n = plan.keepOf(hunk) + 1;
      kept.set(hunk, n);
      if (fits(plan)) return n < hunk.lines.length;
      kept.set(hunk, n - 1);
      return false;
    });
  }
  return { text: render(diff, plan, o.id, o.path), calls };
}
