import { toError } from '../errors.js';

/** Under the callers' own timeouts: Portkey's webhook waits 3 s by default. */
export const DEFAULT_DEADLINE_MS = 2500;

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
export async function withinDeadline<T>(work: () => Promise<T>, ms: number): Promise<Bounded<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Bounded<T>>((resolve) => {
    timer = setTimeout(() => resolve({ failOpen: `over the deadline of ${ms} ms` }), ms);
  });
  const run = (async (): Promise<Bounded<T>> => {
    try {
      return { value: await work() };
    } catch (err) {
      return { failOpen: toError(err).message.slice(0, 200) };
    }
  })();
  try {
    return await Promise.race([run, late]);
  } finally {
    clearTimeout(timer);
  }
}
