import { asRecord } from '../../text/index.js';
import type { ModelPrice } from '../prices.js';
import type { ProviderSpec } from '../provider-spec.js';
import { tokenCount, usageRecord } from '../usage.js';
import { anthropicAdapter } from './view.js';

export { EXAMPLES as examples } from './examples.js';
export { anthropicAdapter } from './view.js';

/** Anthropic's prices: cache reads at 0.1x, 5-minute cache writes at 1.25x. */
const priced = (input: number): ModelPrice => ({ input, cacheRead: input / 10, cacheWrite: input * 1.25 });

const blocksOf = (body: Record<string, unknown>): unknown[] =>
  (Array.isArray(body.messages) ? body.messages : []).flatMap((m) => {
    const content = asRecord(m)?.content;
    return Array.isArray(content) ? content : [];
  });

/**
 * Anthropic Messages (and count_tokens), at api.anthropic.com; Claude Code's own `/api/...`
 * paths and the `anthropic-*` headers name it too.
 *
 * @example
 * spec.paths['/v1/messages/count_tokens']; // { advances: false }
 */
export const spec: ProviderSpec<'anthropic', 'anthropic'> = {
  api: 'anthropic',
  upstream: { key: 'anthropic', url: 'https://api.anthropic.com' },
  paths: { '/v1/messages': { advances: true }, '/v1/messages/count_tokens': { advances: false } },
  names: (path, headers) =>
    /^\/(?:v1\/messages|v1\/complete|api\/)/.test(path) ||
    headers['anthropic-version'] !== undefined ||
    headers['anthropic-beta'] !== undefined ||
    headers['x-api-key'] !== undefined,
  credentials: { headers: ['x-api-key'] },
  adapter: anthropicAdapter,
  conversationKey: 'messages',
  maxOutput: (body) => body.max_tokens,
  errorBody: (type, message) => ({ type: 'error', error: { type, message } }),
  usageMark: 'input_tokens"',
  usage(answer) {
    const usage = usageRecord(answer);
    // Anthropic counts cache reads and writes apart from input_tokens (OpenAI's shapes hold them within).
    if (!usage || typeof usage.input_tokens !== 'number') return undefined;
    if (usage.input_tokens_details !== undefined || usage.prompt_tokens !== undefined) return undefined;
    return {
      input: tokenCount(usage.input_tokens),
      cacheRead: tokenCount(usage.cache_read_input_tokens),
      cacheWrite: tokenCount(usage.cache_creation_input_tokens),
    };
  },
  prices: {
    'claude-opus': priced(5),
    'claude-opus-4-0': priced(15),
    'claude-opus-4-1': priced(15),
    'claude-opus-4-2025': priced(15),
    'claude-3-opus': priced(15),
    'claude-sonnet': priced(3),
    'claude-3-7-sonnet': priced(3),
    'claude-3-5-sonnet': priced(3),
    'claude-haiku': priced(1),
    'claude-3-5-haiku': priced(0.8),
    'claude-3-haiku': priced(0.25),
  },
  saved: {
    expects:
      'an Anthropic Messages request body (a JSON object with "messages" holding tool_use/tool_result blocks)',
    holds: (body) =>
      blocksOf(body).some((b) => asRecord(b)?.type === 'tool_result' || asRecord(b)?.type === 'tool_use'),
  },
  recall: () => import('./recall.js').then((m) => m.recallDialect),
};
