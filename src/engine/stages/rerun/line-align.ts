/**
 * A stretch of a new text's lines: lines found in an old text in a row (`same`, with where they
 * start there), or lines the old text does not have in that place (`new`). Ends are exclusive.
 */
export type Stretch =
  | { kind: 'same'; from: number; to: number; oldFrom: number }
  | { kind: 'new'; from: number; to: number };

/**
 * The new lines as stretches the old lines have in the same order, and the rest: a greedy
 * alignment in one pass (a line index of the old text, each match after the last), linear in
 * the lines. A match starts only on a line the old text has once, or on two lines in a row, so a
 * blank line or a brace does not pull the alignment far ahead.
 *
 * @example
 * alignLines(['a', 'b', 'c'], ['a', 'x', 'b', 'c']);
 * // [{ kind: 'same', from: 0, to: 1, oldFrom: 0 }, { kind: 'new', from: 1, to: 2 }, { kind: 'same', from: 2, to: 4, oldFrom: 1 }]
 */
export function alignLines(oldLines: readonly string[], newLines: readonly string[]): Stretch[] {
  const at = new Map<string, number[]>();
  oldLines.forEach((line, i) => {
    const list = at.get(line);
    if (list) list.push(i);
    else at.set(line, [i]);
  });
  const out: Stretch[] = [];
  const push = (s: Stretch) => {
    const last = out.at(-1);
    if (last && last.kind === s.kind && last.to === s.from && (s.kind === 'new' || sameContinues(last, s)))
      last.to = s.to;
    else out.push(s);
  };
  let next = 0; // old lines before this are used
  for (let i = 0; i < newLines.length; ) {
    const line = newLines[i] as string;
    if (oldLines[next] === line && out.at(-1)?.kind === 'same') {
      push({ kind: 'same', from: i, to: i + 1, oldFrom: next });
      next++;
      i++;
      continue;
    }
    const p = firstAfter(at.get(line), next);
    const starts =
      p !== undefined && ((at.get(line)?.length ?? 0) === 1 || oldLines[p + 1] === newLines[i + 1]);
    if (starts) {
      push({ kind: 'same', from: i, to: i + 1, oldFrom: p });
      next = p + 1;
    } else push({ kind: 'new', from: i, to: i + 1 });
    i++;
  }
  return out;
}

function sameContinues(last: Stretch, s: Stretch): boolean {
  return last.kind === 'same' && s.kind === 'same' && last.oldFrom + (last.to - last.from) === s.oldFrom;
}

/** The first position in a sorted list at or after `from`. */
function firstAfter(list: readonly number[] | undefined, from: number): number | undefined {
  if (!list) return undefined;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as number) < from) lo = mid + 1;
    else hi = mid;
  }
  return list[lo];
}
