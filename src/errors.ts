/**
 * Stable error codes. Callers match on `err.code`, never on message text.
 */
export type SpillwayErrorCode =
  | 'SPILLWAY_BAD_ID'
  | 'SPILLWAY_BAD_CONFIG'
  | 'SPILLWAY_BAD_INPUT'
  | 'SPILLWAY_NOT_FOUND'
  | 'SPILLWAY_QUOTA'
  | 'SPILLWAY_IO'
  | 'SPILLWAY_LOCK_TIMEOUT'
  | 'SPILLWAY_USAGE';

const MARK = Symbol.for('spillway.error');

/**
 * The one base error of spillway: a stable `code` plus a message that says what was wrong
 * and what to do.
 *
 * @example
 * try {
 *   lookupSomething();
 * } catch (err) {
 *   if (SpillwayError.isInstance(err) && err.code === 'SPILLWAY_BAD_ID') console.error(err.message);
 * }
 */
export class SpillwayError extends Error {
  readonly code: SpillwayErrorCode;
  readonly [MARK] = true;

  constructor(code: SpillwayErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SpillwayError';
    this.code = code;
  }

  /**
   * True for a SpillwayError from any copy of the package (a symbol marker, not `instanceof`,
   * so two installed copies still recognise each other's errors).
   *
   * @example
   * SpillwayError.isInstance(new SpillwayError('SPILLWAY_BAD_ID', 'bad id')); // true
   */
  static isInstance(value: unknown): value is SpillwayError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARK] === true;
  }
}
