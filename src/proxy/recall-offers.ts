/**
 * The conversations that were offered the recall tool, so every later request of one is offered
 * it too (the tools, at the head of the cached prefix, never change back). Bounded like the
 * session table: least recently seen first out; a forgotten conversation is offered the tool
 * again as soon as its body shows a marker, which a conversation that had one keeps.
 *
 * @example
 * const offers = new RecallOffers();
 * offers.remember('s_abc'); offers.has('s_abc'); // true
 */
export class RecallOffers {
  readonly #seen = new Map<string, true>();
  readonly #max: number;

  constructor(max = 10_000) {
    this.#max = max;
  }

  has(session: string): boolean {
    return this.#seen.has(session);
  }

  remember(session: string): void {
    this.#seen.delete(session);
    this.#seen.set(session, true);
    for (const key of this.#seen.keys()) {
      if (this.#seen.size <= this.#max) break;
      this.#seen.delete(key);
    }
  }
}
