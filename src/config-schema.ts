import { z } from 'zod';
import { SpillwayError } from './errors.js';

/**
 * Config schemas are zod objects beside the code they configure; these build their fields with
 * messages a person can act on, and {@link parseConfig} turns a failure into one
 * SPILLWAY_BAD_CONFIG error that names the key, what is allowed, and what was given.
 */

/**
 * A whole number at least `min`.
 *
 * @example
 * z.strictObject({ maxTokens: wholeNumber(0).optional() });
 */
export function wholeNumber(min?: number) {
  const message = min === undefined ? 'must be a whole number' : `must be a whole number >= ${min}`;
  const int = z.int({ error: message });
  return min === undefined ? int : int.min(min, { error: message });
}

/**
 * A number above 0 and at most 1.
 *
 * @example
 * z.strictObject({ maxFrac: fraction().optional() });
 */
export function fraction() {
  const message = 'must be a number above 0 and at most 1';
  return z.number({ error: message }).gt(0, { error: message }).max(1, { error: message });
}

/**
 * true or false.
 *
 * @example
 * z.strictObject({ exempt: flag().optional() });
 */
export function flag() {
  return z.boolean({ error: 'must be true or false' });
}

/**
 * Validates one config object against a strict schema. Unknown keys, values of the wrong kind
 * and values out of range are SPILLWAY_BAD_CONFIG errors that start with `where` and say what
 * is allowed; the parsed value (defaults filled in) is returned.
 *
 * @example
 * parseConfig(CollapseOptionsSchema, { maxTokens: -1 }, 'stages[0] (collapse)');
 * // throws: stages[0] (collapse): "maxTokens" must be a whole number >= 0, got -1
 */
export function parseConfig<S extends z.ZodObject>(
  schema: S,
  value: unknown,
  where: string,
  expected = 'a JSON object',
): z.output<S> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new SpillwayError('SPILLWAY_BAD_CONFIG', `${where}: expected ${expected}`);
  const allowed = Object.keys(schema.shape);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key))
      throw new SpillwayError(
        'SPILLWAY_BAD_CONFIG',
        `${where}: unknown key "${key}"; allowed: ${allowed.length ? allowed.join(', ') : '(none)'}`,
      );
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  const key = String(issue.path[0] ?? '');
  const given = (value as Record<string, unknown>)[key];
  throw new SpillwayError(
    'SPILLWAY_BAD_CONFIG',
    `${where}: "${key}" ${issue.message}, got ${JSON.stringify(given)}`,
  );
}
