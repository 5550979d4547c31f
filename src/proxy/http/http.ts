import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiName, PROVIDERS } from '../../providers/index.js';

/** A request body over the proxy's limit. */
export class BodyTooLarge extends Error {}

/**
 * Reads a request body whole, refusing (before reading, when declared) past `limit` bytes. A
 * refused body is not cut off: the rest is read and dropped in the background (see
 * `refuseTooLarge`), so the client can finish sending and read the answer instead of seeing a
 * broken pipe.
 *
 * @example
 * const raw = await readBody(req, 64 * 1024 * 1024);
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (refused) return;
      if (size > limit) {
        refused = true;
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => {
      req.off('data', onData);
      if (!refused) resolve(Buffer.concat(chunks, size));
    });
    req.once('error', (err) => {
      if (!refused) reject(err);
    });
  });
}

/** The most of a refused body read and dropped before the connection is closed anyway. */
const DRAIN_LIMIT_BYTES = 1024 * 1024 * 1024;

/**
 * Answers 413 at once and closes the connection only after the client has sent the rest of its
 * body (up to 1 GiB more, then it is cut): clients that write the whole body before reading,
 * such as curl and Node's http.request, then see the 413 rather than EPIPE.
 *
 * @example
 * refuseTooLarge(req, res, { error: { message: 'too large' } });
 */
export function refuseTooLarge(req: IncomingMessage, res: ServerResponse, body: unknown): void {
  refuseUnread(req, res, 413, body);
}

/**
 * Answers `status` before reading the body, the way {@link refuseTooLarge} does (the rest of the
 * body is drained, so the client sees the answer rather than EPIPE).
 *
 * @example
 * refuseUnread(req, res, 400, apiError('anthropic', 'invalid_request_error', 'bad header'));
 */
export function refuseUnread(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    connection: 'close',
  });
  res.write(text);
  let drained = 0;
  const finish = () => {
    if (!res.writableEnded) res.end();
  };
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT_BYTES) {
      finish();
      req.destroy();
    }
  });
  req.once('end', finish);
  req.once('close', finish);
  req.resume();
}

/**
 * Answers with a JSON body.
 *
 * @example
 * sendJson(res, 200, { ok: true });
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Answers with a text body.
 *
 * @example
 * sendText(res, 200, 'text/plain; charset=utf-8', page.text);
 */
export function sendText(res: ServerResponse, status: number, contentType: string, text: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * An error in the shape the client's SDK expects for its API (a request of no API: the shape of
 * the upstream it would go to).
 *
 * @example
 * sendJson(res, 413, apiError('anthropic', 'request_too_large', 'the body is too large'));
 */
export function apiError(api: ApiName | undefined, type: string, message: string): unknown {
  return (api ? PROVIDERS.of(api) : PROVIDERS.fallback).errorBody(type, message);
}

/**
 * A request target fit for a log line: the path, and no query (Gemini clients may put their API
 * key in `?key=`; other queries can hold ids or patterns).
 *
 * @example
 * redactedTarget('/v1beta/models/g:generateContent?key=SECRET&alt=sse'); // '/v1beta/models/g:generateContent?…'
 */
export function redactedTarget(target: string | undefined): string {
  const t = target ?? '/';
  const q = t.indexOf('?');
  return q < 0 ? t : `${t.slice(0, q)}?…`;
}

/**
 * True for addresses only this machine can reach.
 *
 * @example
 * isLoopback('127.0.0.1'); // true
 * isLoopback('0.0.0.0'); // false
 */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
