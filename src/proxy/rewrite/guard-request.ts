import {
  type CalibrationSample,
  type ConversationEngine,
  callsAsSent,
  windowCap,
} from '../../engine/index.js';
import type { ApiName, RequestView } from '../../providers/index.js';
import type { Content, ToolResult } from '../../text/index.js';
import { getTokenizer } from '../../text/tokenizers/index.js';
import { bodyWith } from './body-with.js';
import { RequestTokens } from './request-tokens.js';
import type { RequestWindow } from './request-window.js';

/** What the window guard found and did for one request (for the log line and /stats). */
export interface GuardReport {
  model: string;
  limit: number;
  /**
   * Calibrated estimates of the request before and after the guard (a message or result past
   * the window counted as one token more than the window: see `windowCap`).
   */
  before: number;
  after: number;
  masked: number;
  collapsed: number;
  /** Old calls whose large arguments it cleared. */
  cleared: number;
  /** False when tool results alone could not make it fit: it went out as it was. */
  fits: boolean;
}

// One counter for the process: messages are remembered by the hash of their bytes, so every
// conversation's turn counts only what is new, and one bounded table holds them all.
let counter: RequestTokens | undefined;

/**
 * The token counter of request bodies (o200k, remembered per message, bounded).
 *
 * @example
 * requestTokens().count('anthropic', body);
 */
export function requestTokens(): RequestTokens {
  counter ??= new RequestTokens(getTokenizer('o200k'));
  return counter;
}

/** What a request changes before it goes out: results' contents and calls' arguments (by index). */
export interface RequestChanges {
  contents: Map<number, Content>;
  inputs: Map<number, string>;
}

/**
 * The window guard on the proxy's side: when the calibrated estimate of the body about to go
 * out is over the request's window, asks the engine to mask and collapse results (and clear old calls' large arguments) until it fits,
 * and writes them into the body. A body under its window in bytes (a token is at least a byte)
 * is never counted. Returns the body to send and a report when the estimate was over.
 *
 * @example
 * const { body, report } = await guardRequest(conversation, { view, parsed, raw, window }, turn.results, { contents, inputs }, body);
 */
async function guardRequest(
  conversation: ConversationEngine,
  at: { view: RequestView<ApiName>; parsed: unknown; raw: Buffer; window: RequestWindow },
  results: readonly ToolResult[],
  changes: RequestChanges,
  body: Buffer,
): Promise<{ body: Buffer; report?: GuardReport }> {
  const { view, window } = at;
  const ratio = conversation.calibration.ratio(window.model);
  if (body.length * ratio <= window.limit) return { body };
  const raw = requestTokens().count(view.api, body, conversation, windowCap(window.limit, ratio));
  if (raw * ratio <= window.limit) return { body };
  // The calls as they go out now: those cleared before are cleared already.
  const calls = callsAsSent(view.calls, changes.inputs);
  const fit = await conversation.fitWindow(view.results, results, {
    requestTokens: raw,
    limit: window.limit,
    ratio,
    calls,
  });
  const report: GuardReport = {
    model: window.model,
    limit: window.limit,
    before: fit.plan.before,
    after: fit.plan.fits ? fit.plan.after : fit.plan.before,
    masked: fit.masked,
    collapsed: fit.collapsed,
    cleared: fit.inputs.size,
    fits: fit.plan.fits,
  };
  if (fit.results === results && fit.inputs.size === 0) return { body, report };
  fit.results.forEach((result, i) => {
    if (result !== results[i]) changes.contents.set(i, result.content);
  });
  for (const [i, text] of fit.inputs) changes.inputs.set(i, text);
  return { body: bodyWith(at, changes.contents, changes.inputs), report };
}

/**
 * What the window asks of a request about to go out: the guard's body (and report), and, once
 * the request is within reach of its window, a way to learn from the provider's count.
 *
 * @example
 * const { body, guard, calibrate } = await fitRequest(conversation, at, turn.results, { contents, inputs }, body);
 */
export async function fitRequest(
  conversation: ConversationEngine,
  at: { view: RequestView<ApiName>; parsed: unknown; raw: Buffer; window: RequestWindow },
  results: readonly ToolResult[],
  changes: RequestChanges,
  body: Buffer,
): Promise<{
  body: Buffer;
  guard?: GuardReport;
  calibrate?: (providerTokens: number, sentBody?: Buffer) => CalibrationSample | undefined;
}> {
  const { window, view } = at;
  const guarded = await guardRequest(conversation, at, results, changes, body);
  const sent = guarded.body;
  // Counting what was sent costs CPU after every answer: done only once the request is within
  // reach of its window (a quarter of it in bytes, the most tokens it can hold), where the
  // guard will need the factor; before that the prior serves.
  const learn = sent.length * conversation.calibration.ratio(window.model) >= window.limit / 4;
  // `sentBody`: what went up when it is not the guard's body (the proxy added the recall tool).
  const calibrate = (providerTokens: number, sentBody = sent) => {
    // A request the provider took at over four windows says its window is not the one we know;
    // counting all of it would cost seconds for a sample of nothing.
    const cap = 4 * windowCap(window.window, conversation.calibration.ratio(window.model));
    const raw = requestTokens().count(view.api, sentBody, conversation, cap);
    return raw > cap ? undefined : conversation.calibration.observe(window.model, raw, providerTokens);
  };
  return {
    body: sent,
    ...(guarded.report ? { guard: guarded.report } : {}),
    ...(learn ? { calibrate } : {}),
  };
}
