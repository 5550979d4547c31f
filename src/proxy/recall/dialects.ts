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

/**
 * What the offered tool may add to a request, in tokens: its largest definition's bytes (a token
 * is at least a byte), so a guarded request has room for it.
 */
export const RECALL_TOOL_TOKENS = Math.max(
  ...Object.values(DIALECTS).map((d) => Buffer.byteLength(d.toolJson) + 1),
);
