/**
 * Byte-pair merging in O(n log n): the same merges as tiktoken and gpt-tokenizer (the lowest
 * rank first, the leftmost of equal ranks), found with an indexed heap instead of a scan of every
 * pair per merge, so one pre-token of megabytes (a run of one letter, base64 with no digits, CJK)
 * costs about as much per byte as ordinary text.
 */

/** A token's bytes, one char per byte (latin1), keyed to its rank. */
export type ByteRanks = ReadonlyMap<string, number>;

const NONE = 0x7fffffff;

/**
 * The number of tokens BPE makes of one pre-token, given as its UTF-8 bytes one char per byte.
 *
 * @example
 * mergeCount(Buffer.from('hello', 'utf8').toString('latin1'), ranks); // 1 with o200k's ranks
 */
// Long: one heap algorithm; its helpers share the typed arrays, so they live in one closure.
export function mergeCount(bytes: string, ranks: ByteRanks): number {
  const n = bytes.length;
  if (n <= 1) return n;
  // Parts are runs of bytes; a part is named by its first byte. next[n - 1]'s part ends at n.
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const rank = new Int32Array(n);
  const heap = new Int32Array(n);
  const pos = new Int32Array(n).fill(-1);
  let size = 0;

  const pairRank = (i: number): number => {
    const j = next[i] as number;
    if (j >= n) return NONE;
    return ranks.get(bytes.slice(i, next[j])) ?? NONE;
  };
  const before = (a: number, b: number): boolean =>
    (rank[a] as number) < (rank[b] as number) || (rank[a] === rank[b] && a < b);
  const place = (k: number, part: number): void => {
    heap[k] = part;
    pos[part] = k;
  };
  const siftUp = (k: number): void => {
    const part = heap[k] as number;
    while (k > 0) {
      const parent = (k - 1) >> 1;
      const p = heap[parent] as number;
      if (!before(part, p)) break;
      place(k, p);
      k = parent;
    }
    place(k, part);
  };
  const siftDown = (k: number): void => {
    const part = heap[k] as number;
    for (;;) {
      let child = 2 * k + 1;
      if (child >= size) break;
      const right = child + 1;
      if (right < size && before(heap[right] as number, heap[child] as number)) child = right;
      if (!before(heap[child] as number, part)) break;
      place(k, heap[child] as number);
      k = child;
    }
    place(k, part);
  };
  const remove = (part: number): void => {
    const k = pos[part] as number;
    pos[part] = -1;
    size--;
    if (k === size) return;
    place(k, heap[size] as number);
    siftDown(k);
    siftUp(pos[heap[k] as number] === k ? k : (pos[heap[k] as number] as number));
  };
  const rerank = (part: number): void => {
    rank[part] = pairRank(part);
    const inHeap = (pos[part] as number) >= 0;
    if (rank[part] === NONE) {
      if (inHeap) remove(part);
    } else if (inHeap) {
      siftUp(pos[part] as number);
      siftDown(pos[part] as number);
    } else {
      place(size, part);
      siftUp(size++);
    }
  };

  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  for (let i = 0; i < n; i++) {
    rank[i] = pairRank(i);
    if (rank[i] !== NONE) place(size++, i);
  }
  for (let k = (size >> 1) - 1; k >= 0; k--) siftDown(k);

  let parts = n;
  while (size > 0) {
    const left = heap[0] as number;
    const right = next[left] as number;
    next[left] = next[right] as number;
    if ((next[right] as number) < n) prev[next[right] as number] = left;
    if ((pos[right] as number) >= 0) remove(right);
    parts--;
    rerank(left);
    if ((prev[left] as number) >= 0) rerank(prev[left] as number);
  }
  return parts;
}
