/**
 * Where each line of a text is, found lazily from either end or from lines already known (a
 * 15 MB input is never split whole).
 *
 * @example
 * const index = new LineIndex('a\nb\nc');
 * index.count; // 3
 * index.text(2); // 'c'
 */
export class LineIndex {
  readonly count: number;
  readonly #text: string;
  readonly #starts = new Map<number, number>();

  /** `count`, when the caller has counted the lines already (`scanLines` does), is not counted again. */
  constructor(text: string, count?: number) {
    this.#text = text;
    let n = 1;
    if (count === undefined) for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) n++;
    this.count = count ?? n;
    this.#starts.set(0, 0);
  }

  /** Notes where a line starts (important lines arrive with their offsets). */
  know(line: number, start: number): void {
    this.#starts.set(line, start);
  }

  start(line: number): number {
    const known = this.#starts.get(line);
    if (known !== undefined) return known;
    // Walk from the nearest known neighbour: lines are asked for next to ones already found.
    const before = this.#starts.get(line - 1);
    if (before !== undefined) {
      const start = this.#text.indexOf('\n', before) + 1;
      this.#starts.set(line, start);
      return start;
    }
    const after = this.#starts.get(line + 1);
    if (after !== undefined) {
      const start = this.#text.lastIndexOf('\n', after - 2) + 1;
      this.#starts.set(line, start);
      return start;
    }
    if (line === this.count - 1) {
      const start = this.#text.lastIndexOf('\n') + 1;
      this.#starts.set(line, start);
      return start;
    }
    throw new Error(`line ${line} asked for with no known neighbour`);
  }

  /**
   * Visits lines from `from` towards `last` (`step` 1 or -1) while `visit` returns true, and
   * returns the last line it returned true for (`from - step` when none). Only that line's start
   * is kept: a fold over a million lines does not fill the index with them.
   */
  walk(from: number, step: 1 | -1, last: number, visit: (line: number, text: string) => boolean): number {
    const text = this.#text;
    let found = from - step;
    let foundStart = -1;
    let start = this.start(from);
    for (let line = from; (line - last) * step <= 0; line += step) {
      const stop = text.indexOf('\n', start);
      if (!visit(line, text.slice(start, stop < 0 ? text.length : stop))) break;
      found = line;
      foundStart = start;
      if (step > 0 ? stop < 0 : line === 0) break;
      start = step > 0 ? stop + 1 : line === 1 ? 0 : text.lastIndexOf('\n', start - 2) + 1;
    }
    if (foundStart >= 0) this.#starts.set(found, foundStart);
    return found;
  }

  text(line: number): string {
    const start = this.start(line);
    const end = this.#text.indexOf('\n', start);
    return this.#text.slice(start, end < 0 ? this.#text.length : end);
  }
}
