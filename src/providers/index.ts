export { anthropicAdapter } from './anthropic/index.js';
export { functionResponseText, geminiAdapter } from './gemini/index.js';
export { openaiChatAdapter } from './openai-chat/index.js';
export { openaiResponsesAdapter } from './openai-responses/index.js';
export {
  costOf,
  type ModelPrice,
  ModelPriceSchema,
  PRICES_AS_OF,
  type Prices,
  PricesSchema,
} from './prices.js';
export { ProviderSet } from './provider-set.js';
export type { Headers, ModelCall, ProviderExamples, ProviderSpec } from './provider-spec.js';
export {
  ClosingEvents,
  type Dialect,
  type Json,
  type OfferedTool,
  type RecallAnswer,
  type RecallCall,
  type StreamRelay,
  sumUsage,
  type TurnCut,
  type TurnPart,
} from './recall-dialect.js';
export {
  ADAPTERS,
  API_NAMES,
  type ApiName,
  DEFAULT_UPSTREAMS,
  inputTokensOf,
  inputUsageOf,
  PROVIDERS,
  priceOf,
  type UpstreamKey,
} from './registry.js';
export { asContent, type CallTable, callInput, isExpandTool, LatestWords, resultOf } from './shared.js';
export { eventJson, MAX_EVENT_BYTES, type SseEvent, sseEvents, sseText } from './sse.js';
export { type InputUsage, totalInput } from './usage.js';
export type { RequestAdapter, RequestView } from './view.js';
