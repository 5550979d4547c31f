import { asRecord } from '../../text/index.js';
import { openaiError } from '../openai.js';
import { cachedAt } from '../prices.js';
import type { ProviderSpec } from '../provider-spec.js';
import { cachedWithin } from '../usage.js';
import { geminiAdapter } from './view.js';

export { EXAMPLES as examples } from './examples.js';
export { functionResponseText, geminiAdapter } from './view.js';

/** Gemini's model calls: the model is in the path (`/v1beta/models/gemini-2.5-pro:generateContent`). */
const CALL =
  /^\/(?:v1beta|v1alpha|v1)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/**
 * Gemini's generateContent, streamGenerateContent and countTokens, at
 * generativelanguage.googleapis.com: its paths (`/v1beta/...`, `/upload/...`,
 * `/v1/models/{model}:{method}`) and its key header name it.
 *
 * @example
 * spec.call?.('/v1beta/models/gemini-2.5-pro:countTokens'); // { model: 'gemini-2.5-pro', advances: false }
 */
export const spec: ProviderSpec<'gemini', 'gemini'> = {
  api: 'gemini',
  upstream: { key: 'gemini', url: 'https://generativelanguage.googleapis.com' },
  paths: {},
  call(path) {
    const call = CALL.exec(path);
    return call ? { model: call[1] as string, advances: call[2] !== 'countTokens' } : undefined;
  },
  names: (path, headers) =>
    /^\/(?:v1beta|v1alpha|upload)\//.test(path) ||
    /^\/v1\/(?:tunedModels|models)\/[^/]+:/.test(path) ||
    headers['x-goog-api-key'] !== undefined,
  credentials: { headers: ['x-goog-api-key'], query: ['key'] },
  adapter: geminiAdapter,
  conversationKey: 'contents',
  maxOutput: (body) => asRecord(body.generationConfig)?.maxOutputTokens,
  // Its SDKs read error.message; spillway answers in OpenAI's shape, which holds it.
  errorBody: openaiError,
  usageMark: 'promptTokenCount"',
  usage(answer) {
    const meta = asRecord(answer.usageMetadata);
    if (!meta || typeof meta.promptTokenCount !== 'number') return undefined;
    return cachedWithin(meta.promptTokenCount, meta.cachedContentTokenCount);
  },
  prices: {
    'gemini-3-pro': cachedAt(2, 0.2),
    'gemini-2.5-pro': cachedAt(1.25, 0.125),
    'gemini-2.5-flash': cachedAt(0.3, 0.03),
    'gemini-2.5-flash-lite': cachedAt(0.1, 0.01),
  },
  recall: () => import('./recall.js').then((m) => m.recallDialect),
};
