import { ADAPTERS, type ApiName, type RequestView } from '../formats/index.js';
import {
  countRequest,
  type ProxyContext,
  recordRequest,
  recordRewrite,
  rewriteRequest,
} from '../proxy/index.js';
import { originalOf } from '../text/index.js';
import { anchorResults, continuedKey, conversationKey } from './conversation-key.js';
import { recordHashes, withHashMarkers } from './hash-marker.js';

/** A request body to shorten, as a gateway hands it over. */
export interface CompressInput {
  /** The body (OpenAI chat or Anthropic messages: `messages`, and `model`). */
  body: Record<string, unknown>;
  /** Its bytes as sent, when the caller sent them (else they are the body's JSON). */
  raw?: Buffer;
  /** The APIs the body may be in, tried in order: the first whose adapter finds tool results. */
  apis: readonly ApiName[];
  /** The conversation the caller names (`x-spillway-session`, Portkey's `metadata.session_id`). */
  session?: string | undefined;
}

/** What came of it. `body` is undefined when nothing changed (the caller sends the input on). */
export interface Compressed {
  body: Record<string, unknown> | undefined;
  tokensBefore: number;
  tokensAfter: number;
  /** The hashes of the markers in the new body, each retrievable. */
  hashes: string[];
  session?: string;
  /** Why the input goes on unchanged though it had results (the engine failed: fail open). */
  failOpen?: string;
}

/** Tokens as the heuristic tokenizer counts them: a token every 4 bytes of UTF-8. */
const bytesAsTokens = (bytes: number) => Math.ceil(bytes / 4);

/** The first API whose adapter sees tool results in the body, with its view. */
function viewOf(body: unknown, apis: readonly ApiName[]): { api: ApiName; view: RequestView } | undefined {
  for (const api of apis) {
    const view = ADAPTERS[api].view(body);
    if (view && view.results.length > 0) return { api, view };
  }
  return undefined;
}

/** The tool of each result under its recall id (what a retrieve reports as `tool_name`). */
function toolsById(view: RequestView, ids: ReadonlySet<string>): Map<string, string> {
  const tools = new Map<string, string>();
  for (const r of view.results) {
    if (!r.tool) continue;
    const id = originalOf(r.content, r.originalBytes).id();
    if (ids.has(id)) tools.set(id, r.tool);
  }
  return tools;
}

/**
 * Shortens a request body's tool results through its conversation's engine, exactly as the
 * proxy does (the same collapse, stash, frozen decisions and recall), and writes a `hash=`
 * marker beside each of spillway's markers for the gateways' retrieve. The same messages give
 * the same bytes on every later call, on any instance sharing the store.
 *
 * @example
 * const out = await compressBody(ctx, { body, apis: ['openai-chat', 'anthropic'] });
 * out.body?.messages; // the messages to send on
 */
export async function compressBody(ctx: ProxyContext, input: CompressInput): Promise<Compressed> {
  const raw = input.raw ?? Buffer.from(JSON.stringify(input.body));
  // The heuristic count (4 bytes a token) from the byte length: counting the decoded text
  // again took 3 ms of a 340 KB body's 15.
  const tokensBefore = bytesAsTokens(raw.length);
  const unchanged = { body: undefined, tokensBefore, tokensAfter: tokensBefore, hashes: [] };
  const seen = viewOf(input.body, input.apis);
  if (!seen) return unchanged;
  const { api, view } = seen;
  // A session the caller names is kept as named; only a key spillway made up may be continued.
  const named = conversationKey(view, input.session);
  const key = input.session ? named : await continuedKey(ctx.store, view, named);
  const model = typeof input.body.model === 'string' ? input.body.model : undefined;
  const out = await rewriteRequest(
    api,
    raw,
    { spillway: key },
    { sessions: ctx.sessions, observe: ctx.observe, ...(ctx.window ? { window: ctx.window } : {}) },
    { updateBoundary: true, ...(model ? { model } : {}) },
  );
  // The gateways' traffic counts in /stats, /metrics and the dashboard as the proxy's does.
  countRequest(ctx.stats, api);
  recordRewrite(ctx.stats, out);
  if (out.figures) recordRequest(ctx.stats.savings, out.figures, key, new Date());
  if (out.failOpen) return { ...unchanged, session: key, failOpen: out.failOpen.message.slice(0, 200) };
  if (ctx.observe) return { ...unchanged, session: key };
  await anchorResults(ctx.store, view.results, key);
  if (!out.changed) return { ...unchanged, session: key };
  // Only a body with markers of its own is decoded to tell them from spillway's.
  const before = raw.includes('<<sw:') ? raw.toString('utf8') : '';
  const { text, issued } = withHashMarkers(out.body.toString('utf8'), before);
  await recordHashes(ctx.store, issued, (ids) => toolsById(view, ids));
  return {
    body: JSON.parse(text) as Record<string, unknown>,
    tokensBefore,
    tokensAfter: bytesAsTokens(Buffer.byteLength(text)),
    hashes: [...issued.keys()],
    session: key,
  };
}
