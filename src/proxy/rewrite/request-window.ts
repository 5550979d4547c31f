import { type ApiName, PROVIDERS } from '../../providers/index.js';
import { DEFAULT_OUTPUT_TOKENS, inputLimit, lookupModelLimit } from '../../text/index.js';

/** The window one request has, and what of it the input may fill. */
export interface RequestWindow {
  model: string;
  window: number;
  outputTokens: number;
  /** window - outputTokens - margin ({@link inputLimit}): the most the input may hold. */
  limit: number;
}

/**
 * The window a request really has: its model's (the larger opt-in one only when the request
 * carries Anthropic's `context-1m` beta), less the output it asks room for and a margin. Undefined
 * for a model the table does not know (a local model's window is a serving setting), unless
 * `override` gives the window.
 *
 * @example
 * requestWindow('anthropic', { model: 'claude-sonnet-4-5', max_tokens: 32000 }, undefined); // { window: 200000, limit: 163904, ... }
 */
export function requestWindow(
  api: ApiName,
  body: Record<string, unknown>,
  beta: string | undefined,
  override?: number,
  named?: string,
): RequestWindow | undefined {
  const model = named ?? (typeof body.model === 'string' ? body.model : undefined);
  let window = override;
  if (window === undefined) {
    if (!model) return undefined;
    const known = lookupModelLimit(model, { extended: /\bcontext-1m/.test(beta ?? '') });
    if (!known.found) return undefined;
    window = known.limit;
  }
  const asked = PROVIDERS.of(api).maxOutput(body);
  const outputTokens =
    typeof asked === 'number' && Number.isFinite(asked) && asked > 0 ? asked : DEFAULT_OUTPUT_TOKENS;
  return { model: model ?? 'unknown', window, outputTokens, limit: inputLimit(window, outputTokens) };
}
