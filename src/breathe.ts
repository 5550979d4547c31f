// Every caller's turn comes after the previous caller's: one slice of heavy work per turn of
// the event loop, whoever it belongs to.
let last: Promise<void> = Promise.resolve();

/**
 * Lets the event loop run what is waiting (health checks, other requests' I/O) before the next
 * long piece of synchronous work. An `await` on a settled promise does not: it only drains
 * microtasks. And several requests that each wait with `setImmediate` would all run their next
 * slice in the same turn, back to back; so callers queue, and each turn of the loop runs one
 * slice, with I/O polled between them. The runner calls this between stages and a collapse's
 * windows, the proxy between decoding and parsing a large body: a health check waits for one
 * slice at most, not for every request in flight.
 *
 * @example
 * for (const stage of stages) { await breathe(); await runStage(stage); }
 */
export function breathe(): Promise<void> {
  const mine = last.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  last = mine;
  return mine;
}

/**
 * Work on less than this many bytes (or characters) takes well under a millisecond: giving up
 * the event loop before it would only add a loop turn to every small request.
 */
export const SLICE_BYTES = 256 * 1024;

/**
 * {@link breathe} before work on `size` bytes when it is large enough to hold the loop; nothing
 * (no loop turn) for small work.
 *
 * @example
 * await breatheBefore(text.length);
 */
export async function breatheBefore(size: number): Promise<void> {
  if (size > SLICE_BYTES) await breathe();
}
