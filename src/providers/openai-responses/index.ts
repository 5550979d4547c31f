import { asRecord } from '../../text/index.js';
import { OPENAI_PRICES, openaiError } from '../openai.js';
import type { ProviderSpec } from '../provider-spec.js';
import { cachedWithin, usageRecord } from '../usage.js';
import { openaiResponsesAdapter } from './view.js';

export { EXAMPLES as examples } from './examples.js';
export { openaiResponsesAdapter } from './view.js';

/**
 * OpenAI Responses, at api.openai.com (OpenAI's upstream, shared with Chat Completions).
 *
 * @example
 * spec.paths['/v1/responses']; // { advances: true }
 */
export const spec: ProviderSpec<'openai-responses', 'openai'> = {
  api: 'openai-responses',
  upstream: { key: 'openai', url: 'https://api.openai.com' },
  paths: { '/v1/responses': { advances: true } },
  names: (path) => /^\/v1\/responses(?:[/?]|$)/.test(path),
  credentials: { headers: ['api-key'] },
  adapter: openaiResponsesAdapter,
  conversationKey: 'input',
  maxOutput: (body) => body.max_output_tokens,
  errorBody: openaiError,
  usageMark: 'input_tokens"',
  usage(answer) {
    const usage = usageRecord(answer);
    // Its totals include the cached part, given in input_tokens_details.
    if (!usage || typeof usage.input_tokens !== 'number' || usage.input_tokens_details === undefined)
      return undefined;
    return cachedWithin(usage.input_tokens, asRecord(usage.input_tokens_details)?.cached_tokens);
  },
  prices: OPENAI_PRICES,
  saved: {
    expects:
      'an OpenAI Responses request body (a JSON object with an "input" list holding *_call_output items)',
    holds: (body) =>
      Array.isArray(body.input) &&
      body.input.some((i) => /_call_output$/.test(String(asRecord(i)?.type ?? ''))),
  },
  recall: () => import('./recall.js').then((m) => m.recallDialect),
};
