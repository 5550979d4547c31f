/**
 * How far spillway's token estimates are from the provider's own count, learned from the usage
 * every answer reports. Claude has no offline tokenizer and o200k is not every model's, but the
 * gap is close to a constant factor per model, so the estimate of the next request is the raw
 * count times the factor of the last answer.
 */

/** The factor is kept within this range: a wildly different one is a wrong pairing, not news. */
const MIN_RATIO = 0.25;
const MAX_RATIO = 4;

/**
 * The factor before any answer: Anthropic's tokenizer makes more tokens than o200k of the same
 * code and logs, so a Claude request is assumed 25% over its o200k count until the first answer
 * says how much; o200k is OpenAI's own.
 */
function priorRatio(model: string): number {
  return /claude/i.test(model) ? 1.25 : 1;
}

/** What one answer taught: the raw and the calibrated estimate's relative errors. */
export interface CalibrationSample {
  /** |raw estimate - truth| / truth. */
  rawError: number;
  /** |estimate with the factor in force when the request went out - truth| / truth. */
  calibratedError: number;
  /** The factor from now on. */
  ratio: number;
}

/**
 * Per-model factors of one conversation, falling back to a shared prior (the proxy's latest
 * factor for the model in any conversation) before the conversation's first answer.
 *
 * @example
 * const prior = new Calibration();
 * const session = new Calibration(prior);
 * session.observe('claude-sonnet-4-5', 1000, 1300); // the provider counted 30% more
 * session.estimate('claude-sonnet-4-5', 2000); // 2600
 */
export class Calibration {
  readonly #ratios = new Map<string, number>();
  readonly #samples = new Map<string, number>();
  readonly #prior: Calibration | undefined;

  constructor(prior?: Calibration) {
    this.#prior = prior;
  }

  /** The factor for a model (before anything is known: 1.25 for Claude, 1 for the rest). */
  ratio(model: string): number {
    return this.#ratios.get(model) ?? this.#prior?.ratio(model) ?? priorRatio(model);
  }

  /** How many answers this conversation has learned from, for a model. */
  samples(model: string): number {
    return this.#samples.get(model) ?? 0;
  }

  /** A raw count, calibrated. */
  estimate(model: string, raw: number): number {
    return Math.round(raw * this.ratio(model));
  }

  /**
   * Learns from one answer: `raw` is spillway's count of the request it sent, `truth` the input
   * tokens the provider reported for it. Ignores pairs that cannot be a measurement (zeros).
   */
  observe(model: string, raw: number, truth: number): CalibrationSample | undefined {
    if (!(raw > 0) || !(truth > 0)) return undefined;
    const calibrated = raw * this.ratio(model);
    const ratio = Math.min(MAX_RATIO, Math.max(MIN_RATIO, truth / raw));
    this.#ratios.set(model, ratio);
    this.#samples.set(model, this.samples(model) + 1);
    if (this.#prior) this.#prior.#ratios.set(model, ratio);
    return {
      rawError: Math.abs(raw - truth) / truth,
      calibratedError: Math.abs(calibrated - truth) / truth,
      ratio,
    };
  }
}
