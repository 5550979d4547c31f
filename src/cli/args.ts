import { type ParseArgsConfig, parseArgs } from 'node:util';
import { SpillwayError } from '../errors.js';
import { budgetProblem, MIN_BUDGET, type Unit } from '../text/index.js';

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
      args: withNegativeValues(argv, options),
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
 * `--tokens -5` as `--tokens=-5`: parseArgs takes a value that starts with a dash for an option
 * and says only that the argument is ambiguous, so a negative number given to an option that
 * takes a value is joined to it, and the option's own check says what is wrong with it. Nothing
 * after `--` is touched (a command's own arguments).
 */
function withNegativeValues(argv: string[], options: Options): string[] {
  const takesValue = (arg: string) => {
    const long = /^--([^=]+)$/.exec(arg)?.[1];
    const name = long ?? Object.keys(options).find((k) => arg === `-${options[k]?.short}`);
    return name !== undefined && options[name]?.type === 'string';
  };
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (next !== undefined && /^-\d/.test(next) && takesValue(arg)) {
      out.push(arg.startsWith('--') ? `${arg}=${next}` : `${arg}${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/**
 * A budget flag's value (`--tokens N`, `--bytes N`, `--chars N`): a whole number no smaller
 * than the smallest budget of its unit, or a usage error that says what was wrong and what to
 * give. Every command's budget flags are checked here, when the command starts.
 *
 * @example
 * budgetOption('--tokens', '2000', 'tokens'); // 2000
 * budgetOption('--tokens', '10', 'tokens'); // throws SPILLWAY_USAGE: --tokens 10 is below the smallest budget, 100 tokens ...
 */
export function budgetOption(flag: string, value: string | undefined, unit: Unit): number | undefined {
  const n = intOption(flag, value, Number.MIN_SAFE_INTEGER);
  const problem = n === undefined ? undefined : budgetProblem(n, unit);
  if (problem)
    throw new SpillwayError('SPILLWAY_USAGE', `${flag} ${problem}; give ${flag} ${MIN_BUDGET[unit]} or more`);
  return n;
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
