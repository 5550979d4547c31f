/**
 * Collects a stream's bytes up to `limit`; past it, keeps the first and the last `limit / 2`
 * bytes and counts what fell between, so memory stays bounded whatever a command prints.
 *
 * @example
 * const capture = new OutputCapture(64 * 1024 * 1024);
 * child.stdout.on('data', (b) => capture.push(b));
 * const kept = capture.joined((dropped) => `[${dropped} bytes left out]`);
 */
export class OutputCapture {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;
  private overflowed = false;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (!this.overflowed) {
      this.head.push(chunk);
      this.headBytes += chunk.length;
      if (this.headBytes <= this.limit) return;
      // Over the limit: split what we hold into the kept head and a tail that is trimmed below.
      this.overflowed = true;
      const all = Buffer.concat(this.head);
      const half = Math.floor(this.limit / 2);
      this.head = [all.subarray(0, half)];
      this.headBytes = half;
      this.tail = [all.subarray(half)];
      this.tailBytes = all.length - half;
    } else {
      this.tail.push(chunk);
      this.tailBytes += chunk.length;
    }
    this.trimTail();
  }

  private trimTail(): void {
    const keep = this.limit - this.headBytes;
    while (this.tailBytes > keep) {
      const first = this.tail[0] as Buffer;
      const excess = this.tailBytes - keep;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
        this.dropped += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
        this.dropped += excess;
      }
    }
  }

  /**
   * The kept bytes as one buffer: everything, or the head, a line saying how many bytes were
   * left out (`note(dropped)`), and the tail.
   */
  joined(note: (dropped: number) => string): Buffer {
    const { head, tail, dropped } = this.result();
    return dropped === 0
      ? Buffer.concat([head, tail])
      : Buffer.concat([head, Buffer.from(note(dropped)), tail]);
  }

  /** The kept bytes (head then tail) and how many bytes in between were not kept. */
  result(): { head: Buffer; tail: Buffer; dropped: number } {
    return { head: Buffer.concat(this.head), tail: Buffer.concat(this.tail), dropped: this.dropped };
  }
}
