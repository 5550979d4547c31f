import type { ApiName } from '../../formats/index.js';
import { anthropicDialect } from './anthropic.js';
import type { Dialect } from './dialect.js';
import { geminiDialect } from './gemini.js';
import { openaiChatDialect } from './openai-chat.js';
import { openaiResponsesDialect } from './openai-responses.js';

/** Each API's side of recall through the proxy. */
export const DIALECTS: Readonly<Record<ApiName, Dialect>> = {
  anthropic: anthropicDialect,
  'openai-chat': openaiChatDialect,
  'openai-responses': openaiResponsesDialect,
  gemini: geminiDialect,
};
