import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent } from 'undici';
import { type ApiName, type InputUsage, PROVIDERS } from '../../providers/index.js';
import { type AnswerTap, tapAnswer } from '../metrics/index.js';
import { apiError, redactedTarget, sendJson } from './http.js';
import { responseHeaders, type Upstreams, upstreamFor, upstreamHeaders, upstreamUrl } from './upstreams.js';

/**
 * What forwarding needs of the running proxy (its ProxyContext has all of it): where the
 * upstreams are, the connection pool, the log, and the counters of failures.
 */
export interface ForwardContext {
  readonly upstreams: Upstreams;
  readonly dispatcher: () => Promise<Agent>;
  readonly log: (line: Record<string, unknown>) => void;
  readonly stats: { clientAborts: number; upstreamErrors: number };
}

/** How one request is forwarded. */
export interface ForwardOptions {
  /** The API it was rewritten for; undefined for a pass-through. */
  api: ApiName | undefined;
  /** The (possibly rewritten) body to send; undefined streams the client's own body. */
  body: Buffer | undefined;
  /** performance.now() when the request arrived, for the log's duration. */
  started: number;
  /** More fields for the request's log line. */
  logFields: Record<string, unknown>;
  /** Called once the body has gone upstream (or could not): the rewrite's memory may go. */
  onSent?: () => void;
  /** Called after a successful answer with the input usage it reports (read as it passes), or undefined. */
  onUsage?: (usage: InputUsage | undefined) => void;
}

/** The 502 answer, in the API's error shape, naming the upstream and the flag that sets it. */
function unreachable(api: ApiName | undefined, target: URL, reason: string): unknown {
  const flag = (api ? PROVIDERS.of(api) : PROVIDERS.fallback).upstream.key;
  return apiError(
    api,
    'upstream_unreachable',
    `spillway could not reach the upstream ${target.origin}: ${reason}; check that it is up and that --${flag}-upstream is right`,
  );
}

/** Hands the answer's usage to `onUsage` once it is decoded (never throws: it is bookkeeping). */
async function learnFrom(
  tap: AnswerTap,
  onUsage: ((usage: InputUsage | undefined) => void) | undefined,
): Promise<void> {
  const usage = await tap.result().catch(() => undefined);
  setImmediate(() => onUsage?.(usage));
}

/** Writes the answer to the client as it arrives, waiting for the client to drain. */
async function pipeAnswer(
  body: AsyncIterable<Buffer>,
  res: ServerResponse,
  signal: AbortSignal,
  seen: (chunk: Buffer) => void,
): Promise<void> {
  for await (const chunk of body) {
    seen(chunk);
    // A client that leaves while we wait for it to drain ends the wait (and the request).
    if (!res.write(chunk)) await once(res, 'drain', { signal });
  }
  res.end();
}

/**
 * Forwards a request to its upstream and pipes the answer back as it arrives (every SSE event
 * reaches the client when the upstream sends it). A client that goes away aborts the upstream
 * request; an unreachable upstream is a 502 in the API's error shape.
 *
 * @example
 * await forward(ctx, req, res, { api: undefined, body: undefined, started: performance.now(), logFields: {} });
 */
export async function forward(
  ctx: ForwardContext,
  req: IncomingMessage,
  res: ServerResponse,
  options: ForwardOptions,
): Promise<void> {
  const { api, body } = options;
  const target = upstreamUrl(upstreamFor(ctx.upstreams, req.url ?? '/', req.headers, api), req.url ?? '/');
  const controller = new AbortController();
  let bytesOut = 0;
  const logLine = (fields: Record<string, unknown>) =>
    ctx.log({
      ...options.logFields,
      method: req.method,
      path: redactedTarget(req.url),
      ...fields,
      ms: Math.round(performance.now() - options.started),
    });
  const onClose = () => {
    if (!res.writableFinished) {
      ctx.stats.clientAborts++;
      controller.abort();
    }
  };
  res.on('close', onClose);
  // A rewritten request sends its (possibly new) bytes; any other one streams its own body.
  const streamed = req.method === 'GET' || req.method === 'HEAD' ? undefined : req;
  const upstreamBody = body === undefined ? streamed : body.length > 0 ? body : undefined;
  // A body passed through as it streams keeps its declared length (not sent chunked).
  const declared = Number(req.headers['content-length']);
  const length =
    body?.length ?? (streamed && Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined);
  try {
    const { request: undiciRequest } = await import('undici');
    const upstream = await undiciRequest(target, {
      method: (req.method ?? 'GET') as 'GET',
      headers: upstreamHeaders(req.headers, length),
      body: upstreamBody,
      signal: controller.signal,
      dispatcher: await ctx.dispatcher(),
    });
    options.onSent?.();
    res.writeHead(upstream.statusCode, responseHeaders(upstream.headers));
    const tap = options.onUsage && upstream.statusCode < 300 ? tapAnswer(upstream.headers) : undefined;
    await pipeAnswer(upstream.body as AsyncIterable<Buffer>, res, controller.signal, (chunk) => {
      bytesOut += chunk.length;
      tap?.push(chunk);
    });
    logLine({ status: upstream.statusCode, bytesOut });
    // After the answer is out: the client never waits for the count.
    if (tap) void learnFrom(tap, options.onUsage);
  } catch (err) {
    options.onSent?.();
    if (controller.signal.aborted) {
      logLine({ status: 499, bytesOut, aborted: true });
      return;
    }
    if (res.headersSent) {
      // The upstream failed mid-answer: the client sees the stream cut, and the log says why.
      ctx.stats.upstreamErrors++;
      logLine({
        status: res.statusCode,
        bytesOut,
        error: `upstream failed mid-stream: ${(err as { code?: string }).code ?? (err as Error).message}`,
      });
      res.destroy(err as Error);
      return;
    }
    ctx.stats.upstreamErrors++;
    const reason = (err as { code?: string }).code ?? (err as Error).message;
    sendJson(res, 502, unreachable(api, target, reason));
    logLine({ status: 502, error: reason });
  } finally {
    res.off('close', onClose);
  }
}
