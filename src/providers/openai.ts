import { cachedAt } from './prices.js';

/**
 * The error shape OpenAI's SDKs read (`error.message`, `error.type`, `error.code`); OpenAI's two APIs share it.
 *
 * @example
 * openaiError('request_too_large', 'the body is too large');
 */
export const openaiError = (type: string, message: string): unknown => ({
  error: { type, message, code: type },
});

/**
 * OpenAI's models (both its APIs): cached input at its discount, no write price.
 *
 * @example
 * OPENAI_PRICES['gpt-5'].cacheRead; // 0.125
 */
export const OPENAI_PRICES = {
  'gpt-5': cachedAt(1.25, 0.125),
  'gpt-5-mini': cachedAt(0.25, 0.025),
  'gpt-5-nano': cachedAt(0.05, 0.005),
  'gpt-4.1': cachedAt(2, 0.5),
  'gpt-4.1-mini': cachedAt(0.4, 0.1),
  'gpt-4.1-nano': cachedAt(0.1, 0.025),
  'gpt-4o': cachedAt(2.5, 1.25),
  'gpt-4o-mini': cachedAt(0.15, 0.075),
  o3: cachedAt(2, 0.5),
  'o3-mini': cachedAt(1.1, 0.55),
  'o4-mini': cachedAt(1.1, 0.275),
};
