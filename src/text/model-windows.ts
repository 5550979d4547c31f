/**
 * Context windows of current models, in tokens, as data: the window a request has by default.
 * Where each figure comes from:
 * - Anthropic: the models overview; every Claude model answers within 200K unless the request
 *   opts into the larger window (see {@link EXTENDED_WINDOWS});
 * - OpenAI: gpt-tokenizer 4.0.0's model metadata (OpenAI's published context_window values);
 * - Google: the Gemini model pages; xAI, DeepSeek, Alibaba (Qwen), Mistral, Meta: their model
 *   cards; older entries: the celeste seed's table.
 * Keys are normalised names (see model-limit.ts); a key also matches longer names that extend it
 * after a `-`.
 *
 * Local models are deliberately absent: their window is whatever the server was started with.
 */
export const MODEL_WINDOWS: Readonly<Record<string, number>> = {
  // Anthropic
  'claude-2': 100_000,
  'claude-2-1': 200_000,
  'claude-instant': 100_000,
  'claude-3-haiku': 200_000,
  'claude-3-sonnet': 200_000,
  'claude-3-opus': 200_000,
  'claude-3-5-haiku': 200_000,
  'claude-3-5-sonnet': 200_000,
  'claude-3-7-sonnet': 200_000,
  'claude-haiku-4': 200_000,
  'claude-haiku-4-5': 200_000,
  'claude-sonnet-4': 200_000,
  'claude-sonnet-4-5': 200_000,
  'claude-sonnet-4-6': 200_000,
  'claude-opus-4': 200_000,
  'claude-opus-4-1': 200_000,
  'claude-opus-4-5': 200_000,
  'claude-opus-4-6': 200_000,
  'claude-opus-4-7': 200_000,
  // OpenAI
  'gpt-3.5-turbo': 16_385,
  'gpt-3.5-turbo-instruct': 4_096,
  'gpt-4': 8_192,
  'gpt-4-32k': 32_768,
  'gpt-4-turbo': 128_000,
  'gpt-4-1106-preview': 128_000,
  'gpt-4-0125-preview': 128_000,
  'gpt-4o': 128_000,
  'gpt-4o-mini': 128_000,
  'chatgpt-4o-latest': 128_000,
  'gpt-4.1': 1_047_576,
  'gpt-4.1-mini': 1_047_576,
  'gpt-4.1-nano': 1_047_576,
  'gpt-4.5-preview': 128_000,
  'gpt-5': 400_000,
  'gpt-5-chat': 128_000,
  'gpt-5-codex': 400_000,
  'gpt-5-mini': 400_000,
  'gpt-5-nano': 400_000,
  'gpt-5-pro': 400_000,
  'gpt-5.1': 400_000,
  'gpt-5.1-chat': 128_000,
  'gpt-5.1-codex': 400_000,
  'gpt-5.2': 400_000,
  'gpt-5.2-chat': 128_000,
  'gpt-5.2-codex': 400_000,
  'gpt-5.3-chat': 128_000,
  'gpt-5.3-codex': 400_000,
  'gpt-5.4': 1_050_000,
  'gpt-5.4-mini': 400_000,
  'gpt-5.4-nano': 400_000,
  'gpt-5.5': 1_050_000,
  'gpt-oss-120b': 131_072,
  'gpt-oss-20b': 131_072,
  'codex-mini': 200_000,
  o1: 200_000,
  'o1-mini': 128_000,
  'o1-preview': 128_000,
  'o1-pro': 200_000,
  o3: 200_000,
  'o3-mini': 200_000,
  'o3-pro': 200_000,
  'o4-mini': 200_000,
  // Google
  'gemini-1.5-flash': 1_048_576,
  'gemini-1.5-pro': 2_097_152,
  'gemini-2.0-flash': 1_048_576,
  'gemini-2.0-flash-lite': 1_048_576,
  'gemini-2.5-flash': 1_048_576,
  'gemini-2.5-flash-lite': 1_048_576,
  'gemini-2.5-pro': 1_048_576,
  'gemini-3-pro': 1_048_576,
  'gemini-3-flash': 1_048_576,
  // Gemini 3.x (Gemini CLI's defaults in 0.61): the same 1,048,576-token input limit.
  'gemini-3.1-pro': 1_048_576,
  'gemini-3.1-flash': 1_048_576,
  'gemini-3.1-flash-lite': 1_048_576,
  'gemini-3.5-pro': 1_048_576,
  'gemini-3.5-flash': 1_048_576,
  'gemini-3.5-flash-lite': 1_048_576,
  // xAI
  'grok-2': 131_072,
  'grok-3': 131_072,
  'grok-3-mini': 131_072,
  'grok-4': 256_000,
  'grok-4-fast': 2_000_000,
  'grok-4-1-fast': 2_000_000,
  'grok-code-fast': 256_000,
  // DeepSeek
  'deepseek-chat': 128_000,
  'deepseek-reasoner': 128_000,
  'deepseek-coder': 128_000,
  'deepseek-v3': 128_000,
  'deepseek-r1': 128_000,
  // Qwen
  'qwen-max': 32_768,
  'qwen-plus': 131_072,
  'qwen-turbo': 1_000_000,
  'qwen-long': 10_000_000,
  'qwen2.5': 131_072,
  'qwen2.5-coder': 131_072,
  qwen3: 131_072,
  'qwen3-coder': 262_144,
  'qwen3-coder-plus': 1_000_000,
  'qwen3-max': 262_144,
  qwq: 131_072,
  // Mistral
  'mistral-large': 131_072,
  'mistral-medium': 131_072,
  'mistral-small': 131_072,
  'mistral-nemo': 131_072,
  'open-mistral-nemo': 131_072,
  'pixtral-large': 131_072,
  codestral: 256_000,
  devstral: 131_072,
  ministral: 131_072,
  mixtral: 32_768,
  // Meta Llama
  'llama-3': 8_192,
  'llama-3-1': 131_072,
  'llama-3-2': 131_072,
  'llama-3-3': 131_072,
  'llama-4-scout': 10_000_000,
  'llama-4-maverick': 1_048_576,
};

/**
 * Larger windows a request must opt into: Anthropic's 1M-token context, enabled per request by
 * an `anthropic-beta: context-1m-...` header (or a `[1m]` suffix on the model name in clients
 * that use one), on the models that offer it. Without the opt-in the request has the table's
 * window, and the guard and replay use that one.
 */
export const EXTENDED_WINDOWS: Readonly<Record<string, number>> = {
  'claude-sonnet-4': 1_000_000,
  'claude-sonnet-4-5': 1_000_000,
  'claude-sonnet-4-6': 1_000_000,
  'claude-opus-4-6': 1_000_000,
  'claude-opus-4-7': 1_000_000,
};

/** What an unknown model gets: small enough to be safe for nearly every current model. */
export const DEFAULT_MODEL_WINDOW = 128_000;
