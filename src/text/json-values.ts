/**
 * True for a plain object (not null, not an array): a JSON object.
 *
 * @example
 * isRecord({}); // true
 * isRecord([]); // false
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The value as a JSON object, or undefined.
 *
 * @example
 * asRecord({ a: 1 })?.a; // 1
 * asRecord('x'); // undefined
 */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}
