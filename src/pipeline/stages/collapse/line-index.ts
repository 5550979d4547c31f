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

  text(line: number): string {
    const start = this.start(line);
    const end = this.#text.indexOf('\n', start);
    return this.#text.slice(start, end < 0 ? this.#text.length : end);
  }
}
