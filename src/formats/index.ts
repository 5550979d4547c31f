import { anthropicAdapter } from './anthropic.js';
import { geminiAdapter } from './gemini.js';
import { openaiChatAdapter } from './openai-chat.js';
import { openaiResponsesAdapter } from './openai-responses.js';
import type { ApiName, RequestAdapter } from './types.js';

export { anthropicAdapter } from './anthropic.js';
export { geminiAdapter } from './gemini.js';
export { openaiChatAdapter } from './openai-chat.js';
export { openaiResponsesAdapter } from './openai-responses.js';
export { isExpandTool } from './shared.js';
export * from './types.js';
export { inputTokensOf } from './usage.js';

/**
 * The adapter for an API.
 *
 * @example
 * ADAPTERS.anthropic.view(JSON.parse(body))?.results.length;
 */
export const ADAPTERS: Readonly<Record<ApiName, RequestAdapter>> = {
  anthropic: anthropicAdapter,
  'openai-chat': openaiChatAdapter,
  'openai-responses': openaiResponsesAdapter,
  gemini: geminiAdapter,
};
export { functionResponseText } from './gemini.js';
export {
  costOf,
  type ModelPrice,
  ModelPriceSchema,
  PRICES_AS_OF,
  type Prices,
  PricesSchema,
  priceOf,
} from './prices.js';
export { asContent, type CallTable, callInput, LatestWords, resultOf } from './shared.js';
export { type InputUsage, inputUsageOf, totalInput } from './usage.js';
