import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiName } from '../formats/types.js';

/** A request body over the proxy's limit. */
export class BodyTooLarge extends Error {}

/**
 * Reads a request body whole, refusing (before reading, when declared) past `limit` bytes.
 *
 * @example
 * const raw = await readBody(req, 64 * 1024 * 1024);
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
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
 * An error in the shape the client's SDK expects for its API.
 *
 * @example
 * sendJson(res, 413, apiError('anthropic', 'request_too_large', 'the body is too large'));
 */
export function apiError(api: ApiName | undefined, type: string, message: string): unknown {
  return api === 'anthropic'
    ? { type: 'error', error: { type, message } }
    : { error: { type, message, code: type } };
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
