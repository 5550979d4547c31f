import { asRecord } from '../../text/index.js';
import { OPENAI_PRICES, openaiError } from '../openai.js';
import type { ProviderSpec } from '../provider-spec.js';
import { cachedWithin, usageRecord } from '../usage.js';
import { openaiChatAdapter } from './view.js';

export { EXAMPLES as examples } from './examples.js';
export { openaiChatAdapter } from './view.js';

/**
 * OpenAI Chat Completions, at api.openai.com (OpenAI's upstream, shared with Responses; the one a
 * request naming no API goes to: most local servers and gateways imitate it).
 *
 * @example
 * spec.paths['/v1/chat/completions']; // { advances: true }
 */
export const spec: ProviderSpec<'openai-chat', 'openai'> = {
  api: 'openai-chat',
  upstream: { key: 'openai', url: 'https://api.openai.com', fallback: true },
  paths: { '/v1/chat/completions': { advances: true } },
  names: (path) => /^\/v1\/(?:chat\/completions|completions|embeddings)(?:[/?]|$)/.test(path),
  // Azure OpenAI's key header.
  credentials: { headers: ['api-key'] },
  adapter: openaiChatAdapter,
  conversationKey: 'messages',
  maxOutput: (body) => body.max_completion_tokens ?? body.max_tokens,
  errorBody: openaiError,
  usageMark: 'prompt_tokens"',
  usage(answer) {
    const usage = usageRecord(answer);
    if (!usage || typeof usage.prompt_tokens !== 'number') return undefined;
    return cachedWithin(usage.prompt_tokens, asRecord(usage.prompt_tokens_details)?.cached_tokens);
  },
  prices: OPENAI_PRICES,
  saved: {
    expects:
      'an OpenAI Chat Completions request body (a JSON object with "messages" holding role "tool" messages)',
    holds: (body) =>
      Array.isArray(body.messages) &&
      body.messages.some((m) => asRecord(m)?.role === 'tool' || Array.isArray(asRecord(m)?.tool_calls)),
  },
  recall: () => import('./recall.js').then((m) => m.recallDialect),
};
