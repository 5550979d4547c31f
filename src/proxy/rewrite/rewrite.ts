import { breatheBefore } from '../../breathe.js';
import {
  type BudgetPins,
  type RequestFigures,
  requestFigures,
  type StageName,
  type StageStats,
  type TurnOutcome,
} from '../../engine/index.js';
import { toError } from '../../errors.js';
import { ADAPTERS, type ApiName, type RequestView } from '../../providers/index.js';
import { type Content, decodeUtf8, valueBytes } from '../../text/index.js';
import { bodyWith } from './body-with.js';
import { fitRequest, type GuardReport } from './guard-request.js';
import { otherTokensFrom } from './other-tokens.js';
import { requestWindow } from './request-window.js';
import { type SessionTable, sessionKey } from './sessions.js';

export interface RewriteDeps {
  sessions: SessionTable;
  /** Forward originals, only measure what would have been saved. */
  observe?: boolean;
  now?: () => number;
  /** A context window for every request, instead of the model table's (`--window`). */
  window?: number;
  /** Tokens the request may still gain after the rewrite (the recall tool the proxy offers): the guard keeps room for them. */
  reserveTokens?: number;
}

export interface RewriteOutcome {
  /** What to send upstream: the original bytes unless something changed. */
  body: Buffer;
  changed: boolean;
  session?: string;
  tokensBefore: number;
  tokensAfter: number;
  stages: Partial<Record<StageName, StageStats>>;
  frozenReplayed: number;
  freezeFailures: number;
  /** Old calls whose large arguments `mask` cleared on this request. */
  inputsCleared?: number;
  /** Set when the body was not JSON or not the API's shape. */
  unparseable?: string;
  /** Set when the engine failed and the original is forwarded. */
  failOpen?: Error;
  /** Set when the request's estimate was over its window. */
  guard?: GuardReport;
  /** The store's error, when results went whole because their originals could not be stashed. */
  stashError?: string;
  /** What its tool results came to, for the savings figures (absent when no conversation ran). */
  figures?: RequestFigures;
  /** The model the request names. */
  model?: string;
  /**
   * Learns from the provider's count of the request's input tokens (from its answer's usage):
   * counts what was sent and updates the conversation's calibration. Absent when the request
   * was not a conversation's.
   */
  calibrate?: (
    providerTokens: number,
    sentBody?: Buffer,
  ) => { rawError: number; calibratedError: number } | undefined;
}

/** The outcome of a request that goes up as its own bytes. */
function unchangedOutcome(raw: Buffer, extra: Partial<RewriteOutcome>): RewriteOutcome {
  return {
    body: raw,
    changed: false,
    tokensBefore: 0,
    tokensAfter: 0,
    stages: {},
    frozenReplayed: 0,
    freezeFailures: 0,
    ...extra,
  };
}

/**
 * Results shown as a re-serialized JSON value take the client's own bytes of it, as their text
 * and as what is stashed: a recall gives back what the client sent, not JSON.stringify's view.
 */
function withClientBytes(view: RequestView<ApiName>, raw: Buffer, parsed: unknown): void {
  if (!view.rawValues?.length) return;
  const bytes = valueBytes(raw, parsed, view.rawValues);
  view.rawValues.forEach(({ index }, k) => {
    const own = bytes[k];
    const result = view.results[index];
    if (own && result)
      view.results[index] = { ...result, content: decodeUtf8(own), originalBytes: Buffer.from(own) };
  });
}

/** The body parsed and seen through its API's adapter, or why it cannot be. */
async function readView(
  api: ApiName,
  raw: Buffer,
): Promise<{ parsed: unknown; view: RequestView<ApiName> } | { unparseable: string }> {
  let parsed: unknown;
  // Decoding and parsing a large body are each tens of milliseconds: other requests (and
  // health checks) get the event loop between them.
  const text = decodeUtf8(raw);
  await breatheBefore(raw.length);
  try {
    parsed = JSON.parse(text);
  } catch {
    return { unparseable: 'not JSON' };
  }
  await breatheBefore(raw.length);
  const view = ADAPTERS[api].view(parsed);
  if (!view) return { unparseable: `not an ${api} request body` };
  withClientBytes(view, raw, parsed);
  view.readCallsFrom(raw, parsed);
  return { parsed, view };
}

function modelName(model: unknown): string | undefined {
  return typeof model === 'string' ? model : undefined;
}

/**
 * Rewrites one request body through its conversation's engine (the session's cached-prefix
 * boundary and frozen decisions). Returns the original bytes when nothing changes, when the
 * body is not the API's shape, or when the engine fails (fail open).
 *
 * @example
 * const out = await rewriteRequest('anthropic', bodyBytes, { spillway: req.headers['x-spillway-session'] }, deps, { updateBoundary: true });
 */
export async function rewriteRequest(
  api: ApiName,
  raw: Buffer,
  headers: { spillway?: string | undefined; client?: string | undefined; beta?: string | undefined },
  deps: RewriteDeps,
  options: {
    updateBoundary: boolean;
    model?: string;
    /** Collapse budgets the request pins (x-spillway-budget). */
    budgets?: BudgetPins;
    /** The request's new decisions are written once this settles (the end of its answer). */
    writeDecisionsAfter?: PromiseLike<unknown>;
  },
): Promise<RewriteOutcome> {
  const unchanged = (extra: Partial<RewriteOutcome> = {}) => unchangedOutcome(raw, extra);
  const read = await readView(api, raw);
  if ('unparseable' in read) return unchanged(read);
  const { parsed, view } = read;

  const now = deps.now?.() ?? Date.now();
  const key = sessionKey({
    header: headers.spillway,
    client: headers.client ?? view.clientSession,
    seed: view.sessionSeed,
  });
  const conversation = deps.sessions.get(key, now);
  // Gemini names the model in the path, the others in the body.
  const model = options.model ?? (parsed as { model?: unknown }).model;
  try {
    const turn = await conversation.turn({
      results: view.results,
      messageCount: view.messageCount,
      continuesServerState: view.continuesServerState,
      advance: options.updateBoundary,
      now,
      ...(typeof model === 'string' ? { model } : {}),
      ...(options.writeDecisionsAfter ? { writeDecisionsAfter: options.writeDecisionsAfter } : {}),
      ...(options.budgets ? { budgets: options.budgets } : {}),
      calls: view.calls,
      otherTokensFrom: otherTokensFrom(api, raw, view.results),
    });
    const contents = new Map<number, Content>();
    turn.results.forEach((result, i) => {
      if (result !== view.results[i]) contents.set(i, result.content);
    });
    const base = {
      session: key,
      figures: requestFigures(turn, view.results, key, new Date(now)),
      ...(typeof model === 'string' ? { model } : {}),
      ...turnCounts(turn),
    };
    if (deps.observe) return unchanged(base);
    // The shortened results are spliced into the original bytes: everything else goes upstream
    // exactly as the client sent it (large numbers, key order, spacing, bytes JSON.parse lost).
    const inputs = turn.inputs;
    let body =
      contents.size === 0 && inputs.size === 0 ? raw : bodyWith({ raw, parsed, view }, contents, inputs);
    // count_tokens asks about a request without sending it: no guard event.
    const found = options.updateBoundary
      ? requestWindow(api, parsed as Record<string, unknown>, headers.beta, deps.window, modelName(model))
      : undefined;
    const window =
      found && deps.reserveTokens ? { ...found, limit: found.limit - deps.reserveTokens } : found;
    const fitted = window
      ? await fitRequest(
          conversation,
          { view, parsed, raw, window },
          turn.results,
          { contents, inputs },
          body,
        )
      : { body };
    body = fitted.body;
    // In a fleet the next turn may go to another proxy: the decisions this request's bytes
    // rest on are in the store before it goes upstream (a round trip, while the model has yet
    // to start), never after its answer when the next request may already be elsewhere.
    if (conversation.shared) await conversation.flush();
    const extra = { ...base, ...fitted };
    return body === raw ? unchanged(extra) : { ...extra, body, changed: true };
  } catch (err) {
    return unchanged({ session: key, failOpen: toError(err) });
  }
}

/** A turn's counts for the outcome, with the first stash error of its results (each then went whole). */
function turnCounts(turn: TurnOutcome) {
  const error = turn.outcomes.find((o) => typeof o.detail?.stashError === 'string')?.detail?.stashError;
  return {
    tokensBefore: turn.tokensBefore,
    tokensAfter: turn.tokensAfter,
    stages: turn.stats,
    frozenReplayed: turn.frozenReplayed,
    freezeFailures: turn.freezeFailures,
    inputsCleared: turn.inputsCleared,
    ...(typeof error === 'string' ? { stashError: error.slice(0, 200) } : {}),
  };
}
