/**
 * Lets the event loop run what is waiting (health checks, other requests' I/O) before the next
 * long piece of synchronous work. An `await` on a settled promise does not: it only drains
 * microtasks. The pipeline calls this between stages and between a collapse's windows, so one
 * large result never holds the proxy for longer than one window takes.
 *
 * @example
 * for (const stage of stages) { await breathe(); await runStage(stage); }
 */
export function breathe(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
