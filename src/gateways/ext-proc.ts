import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { createServer, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { isAuthorized, type LogLine, REWRITTEN } from '../proxy/index.js';
import {
  decodeProcessingRequest,
  encodeProcessingResponse,
  type Mutation,
  type ProcessingRequest,
} from './ext-proc-messages.js';

const PROCESS = '/envoy.service.ext_proc.v3.ExternalProcessor/Process';

export interface ExtProcOptions {
  /** Where spillway's `/v1/compress` is (the proxy this server stands beside). */
  compressUrl: string;
  port?: number;
  /**
   * The token a caller must send as gRPC metadata (`x-spillway-token: T` or `authorization:
   * Bearer T`: Envoy's `grpc_service.initial_metadata`), and the call to /v1/compress carries:
   * the user's recall token, or the proxy's --token. Without one every local caller passes.
   */
  token?: string;
  /** The largest gRPC message read (a request body and its framing). */
  maxMessageBytes?: number;
  log?: LogLine;
}

export interface RunningExtProc {
  url: string;
  close(): Promise<void>;
}

/** One HTTP request's state across its ext_proc messages. */
interface Exchange {
  path: string;
  session: string | undefined;
}

/** The new body of a model request, or undefined when it stays as it is (fail open). */
async function rewrittenBody(
  options: ExtProcOptions,
  ex: Exchange,
  body: Buffer,
): Promise<Buffer | undefined> {
  const api = REWRITTEN[ex.path];
  if (api !== 'openai-chat' && api !== 'anthropic') return undefined;
  const res = await fetch(options.compressUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(ex.session ? { 'x-spillway-session': ex.session } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
    },
    body,
  });
  if (res.status !== 200) return undefined;
  const answer = (await res.json()) as { messages?: unknown; tokens_saved?: number };
  if (!answer.tokens_saved || !Array.isArray(answer.messages)) return undefined;
  const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  return Buffer.from(JSON.stringify({ ...parsed, messages: answer.messages }));
}

async function answerOf(
  options: ExtProcOptions,
  ex: Exchange,
  request: ProcessingRequest,
): Promise<Mutation> {
  if (request.phase === 'request_headers') {
    ex.path = (request.headers.get(':path') ?? '').split('?')[0] ?? '';
    ex.session = request.headers.get('x-spillway-session');
    return {};
  }
  // Buffered mode only: a body streamed in chunks goes on as it is.
  if (request.phase !== 'request_body' || !request.endOfStream) return {};
  try {
    const body = await rewrittenBody(options, ex, request.body);
    return body ? { body, setHeaders: [['content-length', String(body.length)]] } : {};
  } catch (err) {
    options.log?.({ extProc: ex.path, failOpen: (err as Error).message.slice(0, 200) });
    return {};
  }
}

/** Splits gRPC's length-prefixed messages out of a stream's bytes, bounded. */
function frames(
  stream: ServerHttp2Stream,
  max: number,
  each: (message: Buffer) => Promise<void>,
): Promise<void> {
  // Chunks are joined once a whole message is in (joining on every chunk would copy a 64 MB
  // body thousands of times).
  let parts: Buffer[] = [];
  let size = 0;
  let chain = Promise.resolve();
  return new Promise((resolve, reject) => {
    const fail = (err: Error) => {
      stream.off('data', onData);
      stream.resume();
      reject(err);
    };
    let needed = 0; // 5 + the message's length, once its prefix is in
    const onData = (chunk: Buffer) => {
      parts.push(chunk);
      size += chunk.length;
      for (;;) {
        if (needed === 0) {
          if (size < 5) return;
          if ((parts[0] as Buffer).length < 5) parts = [Buffer.concat(parts, size)];
          const head = parts[0] as Buffer;
          if (head[0] !== 0) return fail(new Error('compressed gRPC messages are not supported'));
          const length = head.readUInt32BE(1);
          if (length > max)
            return fail(new Error(`a gRPC message of ${length} bytes is over the limit of ${max}`));
          needed = 5 + length;
        }
        if (size < needed) return;
        const all = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size);
        const message = all.subarray(5, needed);
        parts = all.length > needed ? [all.subarray(needed)] : [];
        size -= needed;
        needed = 0;
        chain = chain.then(() => each(message));
      }
    };
    stream.on('data', onData);
    stream.once('end', () => chain.then(resolve, reject));
    stream.once('error', reject);
  });
}

function grpcFrame(message: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

/**
 * Envoy's external processing filter (`ext_proc`) as a gRPC server beside the proxy: Envoy
 * sends each request's headers, then (in BUFFERED request body mode) its whole body; a model
 * request's body (OpenAI chat, Anthropic messages, by its path) is answered with a
 * `body_mutation` holding the body with its tool results collapsed through the proxy's
 * `/v1/compress`, and a `content-length` header mutation. Every other message, any failure
 * and anything spillway cannot shorten are answered CONTINUE with no change.
 *
 * @example
 * const extProc = await startExtProc({ compressUrl: `${proxy.url}/v1/compress`, port: 4748 });
 */
export async function startExtProc(options: ExtProcOptions): Promise<RunningExtProc> {
  const max = options.maxMessageBytes ?? 64 * 1024 * 1024 + 64 * 1024;
  const server = createServer();
  server.on('stream', (stream, headers) => {
    const refuse = (status: string, message: string) =>
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': status,
          'grpc-message': message,
        },
        { endStream: true },
      );
    if (headers[':path'] !== PROCESS) return refuse('12', 'spillway serves only ExternalProcessor/Process');
    // Another local user's Envoy would spend this user's store: it needs the token.
    if (!isAuthorized(options.token, { headers } as unknown as IncomingMessage, { bearer: true }))
      return refuse('16', 'send the token as x-spillway-token metadata (grpc_service.initial_metadata)');
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    const ex: Exchange = { path: '', session: undefined };
    let status = '0';
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': status }));
    frames(stream, max, async (message) => {
      const request = decodeProcessingRequest(message);
      if (!request) return;
      const mutation = await answerOf(options, ex, request);
      if (!stream.destroyed) stream.write(grpcFrame(encodeProcessingResponse(request.phase, mutation)));
    }).then(
      () => stream.end(),
      (err: Error) => {
        status = '3';
        options.log?.({ extProc: ex.path, error: err.message.slice(0, 200) });
        if (!stream.destroyed) stream.end();
      },
    );
  });
  // Envoy keeps its connection open: closing ends every session, not only the listener.
  const sessions = new Set<Http2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  // Loopback only: Envoy runs beside it (the gRPC server has no TLS).
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.destroy();
      await closed;
    },
  };
}
