import { ADAPTERS } from '../formats/index.js';
import type { ApiName } from '../formats/types.js';
import type { ResolvedPipeline } from '../pipeline/config.js';
import { runPipeline, type StageStats } from '../pipeline/runner.js';
import type { StageName } from '../pipeline/types.js';
import type { Store } from '../store/store.js';
import { type Content, contentText } from '../text/blocks.js';
import { lookupModelLimit } from '../text/model-limit.js';
import type { Tokenizer } from '../text/tokenizers/tokenizer.js';
import { type SessionTable, sessionKey } from './sessions.js';

/** Past this idle time the provider's prompt cache is assumed cold (Anthropic's default TTL). */
export const CACHE_TTL_MS = 5 * 60 * 1000;

export interface RewriteDeps {
  pipeline: ResolvedPipeline;
  store: Store;
  sessions: SessionTable;
  /** Counts the tokens /stats reports (the proxy uses bytes/4: cheap on a hot path). */
  statsTokenizer: Tokenizer;
  /** Forward originals, only measure what would have been saved. */
  observe?: boolean;
  /** Test hook: makes the pipeline throw, to exercise failing open. */
  failPipeline?: boolean;
  now?: () => number;
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
  /** Set when the body was not JSON or not the API's shape. */
  unparseable?: string;
  /** Set when the pipeline failed and the original is forwarded. */
  failOpen?: Error;
}

/**
 * Rewrites one request body through the pipeline, with the session's cached-prefix boundary and
 * frozen decisions. Returns the original bytes when nothing changes, when the body is not the
 * API's shape, or when the pipeline fails (fail open).
 *
 * @example
 * const out = await rewriteRequest('anthropic', bodyBytes, req.headers['x-spillway-session'], deps, { updateBoundary: true });
 */
export async function rewriteRequest(
  api: ApiName,
  raw: Buffer,
  sessionHeader: string | undefined,
  deps: RewriteDeps,
  options: { updateBoundary: boolean },
): Promise<RewriteOutcome> {
  const unchanged = (extra: Partial<RewriteOutcome> = {}): RewriteOutcome => ({
    body: raw,
    changed: false,
    tokensBefore: 0,
    tokensAfter: 0,
    stages: {},
    frozenReplayed: 0,
    freezeFailures: 0,
    ...extra,
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return unchanged({ unparseable: 'not JSON' });
  }
  const view = ADAPTERS[api].view(parsed);
  if (!view) return unchanged({ unparseable: `not an ${api} request body` });

  const now = deps.now?.() ?? Date.now();
  const key = sessionKey(sessionHeader, view.sessionSeed);
  const { state, isNew } = deps.sessions.get(key, now);
  // A conversation that got shorter than the boundary was compacted or rewound: its old prefix
  // is no longer the provider's cached prefix. Everything seen before keeps its frozen decision
  // (unchanged ones included), so the boundary starts again and new results can be decided.
  const shrank = !view.continuesServerState && view.messageCount < state.maxCachedIdx;
  if (shrank && options.updateBoundary) state.maxCachedIdx = 0;
  const coldCache = isNew || shrank || now - state.lastSeen > CACHE_TTL_MS;
  const cachedPrefix = view.continuesServerState || shrank ? 0 : state.maxCachedIdx;
  const finish = () => {
    state.lastSeen = now;
    if (options.updateBoundary && !view.continuesServerState)
      state.maxCachedIdx = Math.max(state.maxCachedIdx, view.messageCount);
  };
  if (view.results.length === 0) {
    finish();
    return unchanged({ session: key });
  }

  const model =
    typeof (parsed as { model?: unknown }).model === 'string'
      ? lookupModelLimit((parsed as { model: string }).model)
      : undefined;
  try {
    if (deps.failPipeline) throw new Error('pipeline failure forced for testing');
    const run = await runPipeline(
      view.results,
      deps.pipeline.stages,
      {
        store: deps.store,
        tokenizer: deps.pipeline.tokenizer,
        statsTokenizer: deps.statsTokenizer,
        cachedPrefix,
        coldCache,
        frozen: state.frozen,
        ...(model?.found ? { modelWindow: model.limit } : {}),
      },
      { tools: deps.pipeline.tools },
    );
    const contents = new Map<number, Content>();
    let tokensBefore = 0;
    let tokensAfter = 0;
    run.results.forEach((result, i) => {
      const original = view.results[i]?.content as Content;
      tokensBefore += deps.statsTokenizer.count(contentText(original));
      tokensAfter += deps.statsTokenizer.count(contentText(result.content));
      if (result.content !== original) contents.set(i, result.content);
    });
    finish();
    const base = {
      session: key,
      tokensBefore,
      tokensAfter,
      stages: run.stats,
      frozenReplayed: run.frozenReplayed,
      freezeFailures: run.freezeFailures,
    };
    if (contents.size === 0 || deps.observe) return unchanged(base);
    view.apply(contents);
    return { ...base, body: Buffer.from(JSON.stringify(parsed), 'utf8'), changed: true };
  } catch (err) {
    finish();
    return unchanged({ session: key, failOpen: err instanceof Error ? err : new Error(String(err)) });
  }
}
