import { toError } from '../errors.js';
import { UNQUEUED_BYTES } from '../proxy/index.js';

/**
 * Where a route says when its work ends: work past the deadline goes on in the background, and
 * the room it was admitted with is given back only then (memory stays bounded).
 */
export interface WorkHold {
  settled: Promise<unknown>;
}

/** Under the callers' own timeouts: Portkey's webhook waits 3 s by default. */
export const DEFAULT_DEADLINE_MS = 2500;

/**
 * Waits for room to rewrite `bytes` in the proxy's admission (bounded rewrites and bytes at
 * once, so many large bodies together cannot exhaust memory), at most `ms`: the release, or
 * undefined when no room came in time (room granted later is given back at once).
 *
 * @example
 * const release = await admit(ctx.admission, 8_000_000, 2500);
 * try { ... } finally { release?.(); }
 */
export async function admit(
  admission: { enter(bytes: number): Promise<(() => void) | undefined> },
  bytes: number,
  ms: number,
): Promise<(() => void) | undefined> {
  if (bytes <= UNQUEUED_BYTES) return () => {};
  const entering = admission.enter(bytes);
  const out = await withinDeadline(() => entering, ms);
  if ('value' in out) return out.value;
  entering.then((release) => release?.());
  return undefined;
}

/** How a piece of work ended: its value, or why the input goes on unchanged. */
export type Bounded<T> = { value: T } | { failOpen: string };

/**
 * Runs `work` with a deadline: its value when it ends in time, else why not (it overran, or it
 * threw). The gateways' callers then answer with the input unchanged: spillway is never the
 * reason a request fails. Work that overran runs on to its end in the background (a turn's
 * decisions are written whole or not at all); its result is dropped.
 *
 * @example
 * const out = await withinDeadline(() => compress(body), 2500);
 * if ('failOpen' in out) log({ failOpen: out.failOpen });
 */
export async function withinDeadline<T>(
  work: () => Promise<T>,
  ms: number,
  /** The whole deadline, when `ms` is what is left of it (for the log line). */
  of = ms,
  /** Told when the work itself ends, which may be after the deadline answered. */
  hold?: WorkHold,
): Promise<Bounded<T>> {
  // Spent before the work began: waiting for room to rewrite (see admit), or reading the body.
  if (ms <= 0)
    return { failOpen: 'the deadline was spent before the work began (waiting for room to rewrite)' };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Bounded<T>>((resolve) => {
    timer = setTimeout(() => resolve({ failOpen: `over the deadline of ${of} ms` }), ms);
  });
  const run = (async (): Promise<Bounded<T>> => {
    try {
      return { value: await work() };
    } catch (err) {
      return { failOpen: toError(err).message.slice(0, 200) };
    }
  })();
  if (hold) hold.settled = run;
  try {
    return await Promise.race([run, late]);
  } finally {
    clearTimeout(timer);
  }
}
