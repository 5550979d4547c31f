/**
 * spillway's public API. Layers below it: text (core), and in later versions store, formats,
 * pipeline, session, proxy and mcp.
 *
 * @example
 * import { snip, getTokenizer } from 'spillway';
 * const short = snip(hugeLog, { budget: 2000, unit: 'tokens' });
 * getTokenizer('o200k').count(short) <= 2000; // true
 */
export { SpillwayError, type SpillwayErrorCode } from './errors.js';
export * from './pipeline/index.js';
export * from './session/index.js';
export * from './store/index.js';
export * from './text/index.js';
