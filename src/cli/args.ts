import { type ParseArgsConfig, parseArgs } from 'node:util';
import { SpillwayError } from '../errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;
/** Parsed values, typed from the option table: string options give strings, flags booleans. */
export type Values<O extends Options> = {
  [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean;
} & {
  help?: boolean;
};

/**
 * node:util parseArgs in strict mode, with its errors turned into usage errors (exit 2) that
 * name the command's help.
 *
 * @example
 * const { values, positionals } = parseCommandArgs('snip', argv, { bytes: { type: 'string' } });
 */
export function parseCommandArgs<O extends Options>(
  command: string,
  argv: string[],
  options: O,
): { values: Values<O>; positionals: string[] } {
  try {
    const parsed = parseArgs({
      args: argv,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    return { values: parsed.values as Values<O>, positionals: parsed.positionals };
  } catch (err) {
    throw new SpillwayError('SPILLWAY_USAGE', `${(err as Error).message}\nsee: spillway ${command} --help`);
  }
}

/**
 * A flag's value as an integer >= `min`, or a usage error that says what was wrong.
 *
 * @example
 * intOption('--bytes', '4096'); // 4096
 */
export function intOption(flag: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim()))
    throw new SpillwayError('SPILLWAY_USAGE', `${flag} needs a whole number, got "${value}"`);
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min)
    throw new SpillwayError('SPILLWAY_USAGE', `${flag} must be a whole number >= ${min}, got "${value}"`);
  return n;
}
