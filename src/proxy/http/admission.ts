/** How many rewrites may run at once, on how many bytes, and how long a request may wait. */
export interface AdmissionLimits {
  /** Large rewrites running at once (default 4; requests under 1 MiB are not held). */
  maxConcurrent: number;
  /** Request bytes being rewritten at once (default 128 MiB). */
  maxBytes: number;
  /** A request that waits longer than this is forwarded unmodified, streamed (default 10 s). */
  maxWaitMs: number;
}

/** Requests this small are rewritten at once, never queued: they cost little memory. */
export const UNQUEUED_BYTES = 1024 * 1024;

export const DEFAULT_ADMISSION: Readonly<AdmissionLimits> = Object.freeze({
  maxConcurrent: 4,
  maxBytes: 128 * 1024 * 1024,
  maxWaitMs: 10_000,
});

type Waiter = { bytes: number; admit: (release: () => void) => void };

/**
 * Admission to the rewrite path, in arrival order: a request enters when a slot is free and its
 * bytes fit beside those being rewritten (one larger than the whole budget enters alone). While
 * it waits, its body is not read, so the client holds it. Memory is bounded by the limits
 * whatever the load; a request that cannot enter within `maxWaitMs` gets `undefined` and goes
 * through as it came.
 *
 * @example
 * const release = await admission.enter(bytes);
 * if (!release) return passThrough();
 * try { await rewrite(); } finally { release(); }
 */
export class Admission {
  readonly limits: Readonly<AdmissionLimits>;
  #running = 0;
  #bytes = 0;
  readonly #queue: Waiter[] = [];

  constructor(limits: Partial<AdmissionLimits> = {}) {
    this.limits = Object.freeze({ ...DEFAULT_ADMISSION, ...limits });
  }

  /** Rewrites running, bytes in them, requests waiting. */
  get load(): { running: number; bytes: number; waiting: number } {
    return { running: this.#running, bytes: this.#bytes, waiting: this.#queue.length };
  }

  #fits(bytes: number): boolean {
    if (this.#running >= this.limits.maxConcurrent) return false;
    return this.#running === 0 || this.#bytes + bytes <= this.limits.maxBytes;
  }

  #admit(bytes: number): () => void {
    this.#running++;
    this.#bytes += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running--;
      this.#bytes -= bytes;
      this.#next();
    };
  }

  #next(): void {
    while (this.#queue.length > 0 && this.#fits((this.#queue[0] as Waiter).bytes)) {
      const waiter = this.#queue.shift() as Waiter;
      waiter.admit(this.#admit(waiter.bytes));
    }
  }

  /** Waits for room for `bytes`; the release function, or undefined past `maxWaitMs`. */
  enter(bytes: number): Promise<(() => void) | undefined> {
    if (this.#queue.length === 0 && this.#fits(bytes)) return Promise.resolve(this.#admit(bytes));
    return new Promise((resolve) => {
      const waiter: Waiter = {
        bytes,
        admit: (release) => {
          clearTimeout(timer);
          resolve(release);
        },
      };
      const timer = setTimeout(() => {
        const at = this.#queue.indexOf(waiter);
        if (at >= 0) this.#queue.splice(at, 1);
        resolve(undefined);
        this.#next();
      }, this.limits.maxWaitMs);
      this.#queue.push(waiter);
    });
  }
}
