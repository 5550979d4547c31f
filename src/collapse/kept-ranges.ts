/**
 * The lines a selection keeps, as sorted, disjoint, inclusive ranges.
 *
 * @example
 * const kept = new KeptRanges();
 * kept.add(0); kept.add(1); kept.add(5);
 * kept.ranges; // [[0, 1], [5, 5]]
 * kept.gaps(10); // 2: lines 2-4 and 6-9
 */
export class KeptRanges {
  readonly ranges: [number, number][] = [];

  has(line: number): boolean {
    return this.ranges.some(([a, b]) => line >= a && line <= b);
  }

  /** How many gap markers the output has with these ranges in `lines` lines. */
  gaps(lines: number, extra?: number): number {
    const ranges = extra === undefined ? this.ranges : KeptRanges.#with(this.ranges, extra);
    if (ranges.length === 0) return 1;
    let gaps = ranges.length - 1;
    if ((ranges[0] as [number, number])[0] > 0) gaps++;
    if ((ranges.at(-1) as [number, number])[1] < lines - 1) gaps++;
    return gaps;
  }

  add(line: number): void {
    const next = KeptRanges.#with(this.ranges, line);
    this.ranges.splice(0, this.ranges.length, ...next);
  }

  remove(line: number): void {
    const next: [number, number][] = [];
    for (const [a, b] of this.ranges) {
      if (line < a || line > b) next.push([a, b]);
      else {
        if (a <= line - 1) next.push([a, line - 1]);
        if (line + 1 <= b) next.push([line + 1, b]);
      }
    }
    this.ranges.splice(0, this.ranges.length, ...next);
  }

  static #with(ranges: readonly [number, number][], line: number): [number, number][] {
    const out: [number, number][] = [];
    let merged: [number, number] = [line, line];
    let placed = false;
    for (const [a, b] of ranges) {
      if (b < merged[0] - 1) out.push([a, b]);
      else if (a > merged[1] + 1) {
        if (!placed) {
          out.push(merged);
          placed = true;
        }
        out.push([a, b]);
      } else merged = [Math.min(a, merged[0]), Math.max(b, merged[1])];
    }
    if (!placed) out.push(merged);
    return out;
  }
}
