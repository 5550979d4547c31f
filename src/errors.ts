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
  /** A stored original whose bytes no longer match the content hash its id names. */
  | 'SPILLWAY_TAMPERED'
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

/**
 * The HTTP status each code answers with, where a surface (the proxy's /expand) reports one.
 */
export const HTTP_STATUS: Readonly<Record<SpillwayErrorCode, number>> = {
  SPILLWAY_BAD_ID: 400,
  SPILLWAY_BAD_CONFIG: 400,
  SPILLWAY_BAD_INPUT: 400,
  SPILLWAY_USAGE: 400,
  SPILLWAY_NOT_FOUND: 404,
  SPILLWAY_QUOTA: 507,
  SPILLWAY_LOCK_TIMEOUT: 503,
  SPILLWAY_IO: 500,
  SPILLWAY_TAMPERED: 409,
};

/**
 * The HTTP status for any thrown value: its code's, else 500.
 *
 * @example
 * httpStatusOf(new SpillwayError('SPILLWAY_NOT_FOUND', 'gone')); // 404
 * httpStatusOf(new Error('boom')); // 500
 */
export function httpStatusOf(err: unknown): number {
  return SpillwayError.isInstance(err) ? HTTP_STATUS[err.code] : 500;
}

/**
 * Any thrown value as an Error (a thrown string or object becomes an Error with its text).
 *
 * @example
 * toError('boom').message; // 'boom'
 */
export function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
