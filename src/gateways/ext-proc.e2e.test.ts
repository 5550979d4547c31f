import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningProxy } from '../proxy/index.js';
import { clientsDir, PINNED_LIBRARIES } from '../test-support/client-install.js';
import { buildLog, type ChatMessage, chatConversation } from '../test-support/gateway-bodies.js';
import { startGatewayProxy } from '../test-support/gateway-proxy.js';
import { type RunningExtProc, startExtProc } from './index.js';

// gRPC's xDS package ships Envoy's protos; grpc-js and proto-loader come with it.
const xds = PINNED_LIBRARIES['@grpc/grpc-js-xds'];
const root = join(
  clientsDir(),
  `${xds.pkg.replace('/', '+')}@${xds.version}`,
  'node_modules/@grpc/grpc-js-xds',
);
const missing = existsSync(join(root, 'package.json'))
  ? undefined
  : `${xds.pkg}@${xds.version} is not installed; run "npm run clients" to install what the end-to-end tests use`;

type Json = Record<string, unknown>;
interface Call {
  write(message: Json): void;
  end(): void;
  on(event: 'data', listener: (message: Json) => void): void;
  on(event: 'end' | 'error', listener: (err?: Error) => void): void;
}

/** The CommonResponse of a ProcessingResponse to a request body. */
const bodyAnswer = (answer: Json | undefined): Json =>
  (answer?.request_body as { response?: Json } | undefined)?.response ?? {};

/** Envoy's ProcessingRequest messages for one request, sent as Envoy sends them (BUFFERED body). */
function envoyExchange(path: string, body: Buffer, session?: string): Json[] {
  const header = (key: string, value: string) => ({ key, raw_value: Buffer.from(value) });
  return [
    {
      request_headers: {
        headers: {
          headers: [
            header(':method', 'POST'),
            header(':path', path),
            header('content-type', 'application/json'),
            header('content-length', String(body.length)),
            ...(session ? [header('x-spillway-session', session)] : []),
          ],
        },
        end_of_stream: false,
      },
    },
    { request_body: { body, end_of_stream: true } },
  ];
}

describe.skipIf(missing)(
  `Envoy's ext_proc filter, replayed with a grpc-js client${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let proxy: RunningProxy;
    let extProc: RunningExtProc;
    let client: { Process(): Call; close(): void };

    beforeAll(async () => {
      proxy = await startGatewayProxy();
      extProc = await startExtProc({ compressUrl: `${proxy.url}/v1/compress` });
      const require = createRequire(join(root, 'package.json'));
      const grpc = require('@grpc/grpc-js');
      const loader = require('@grpc/proto-loader');
      const deps = join(root, 'deps');
      const definition = loader.loadSync('envoy/service/ext_proc/v3/external_processor.proto', {
        keepCase: true,
        defaults: false,
        oneofs: true,
        includeDirs: ['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((d) => join(deps, d)),
      });
      const Processor = grpc.loadPackageDefinition(definition).envoy.service.ext_proc.v3.ExternalProcessor;
      client = new Processor(new URL(extProc.url).host, grpc.credentials.createInsecure());
    });
    afterAll(async () => {
      client?.close();
      await extProc?.close();
      await proxy?.close();
    });

    /** Sends one request's messages on one stream, and collects the answers. */
    function exchange(messages: Json[]): Promise<Json[]> {
      const call = client.Process();
      const answers: Json[] = [];
      return new Promise((resolve, reject) => {
        call.on('data', (m) => {
          answers.push(m);
          if (answers.length === messages.length) call.end();
        });
        call.on('end', () => resolve(answers));
        call.on('error', reject);
        for (const m of messages) call.write(m);
      });
    }

    it('answers a chat completion body with a body_mutation holding the collapse, and its content-length', async () => {
      const messages = chatConversation('envoy', 1);
      const body = Buffer.from(JSON.stringify({ model: 'gpt-4o', messages }));
      const [headers, answered] = await exchange(envoyExchange('/v1/chat/completions', body));
      expect(Object.keys(headers ?? {})).toContain('request_headers');
      const common = bodyAnswer(answered);
      const mutated = (common.body_mutation as { body: Buffer }).body;
      const sent = JSON.parse(mutated.toString('utf8')) as { model: string; messages: ChatMessage[] };
      expect(sent.model).toBe('gpt-4o');
      expect(sent.messages[3]?.content).toContain('ERROR envoy0: connection refused');
      expect(String(sent.messages[3]?.content).length).toBeLessThan(buildLog('envoy0').length / 4);
      const set = (
        common.header_mutation as { set_headers: { header: { key: string; raw_value: Buffer } }[] }
      ).set_headers;
      expect(set.map((h) => [h.header.key, h.header.raw_value.toString()])).toEqual([
        ['content-length', String(mutated.length)],
      ]);
      // The next turn through Envoy shares every byte of this one's messages.
      const next = Buffer.from(JSON.stringify({ model: 'gpt-4o', messages: chatConversation('envoy', 2) }));
      const [, nextAnswer] = await exchange(envoyExchange('/v1/chat/completions', next));
      const nextBody = (bodyAnswer(nextAnswer).body_mutation as { body: Buffer }).body;
      const twice = JSON.parse(nextBody.toString('utf8')) as { messages: ChatMessage[] };
      expect(JSON.stringify(twice.messages.slice(0, 4))).toBe(JSON.stringify(sent.messages));
    });

    it('asks for the token as gRPC metadata when it has one', async () => {
      const guarded = await startExtProc({ compressUrl: `${proxy.url}/v1/compress`, token: 'recall-token' });
      const require = createRequire(join(root, 'package.json'));
      const grpc = require('@grpc/grpc-js');
      const Processor = client.constructor as new (
        address: string,
        credentials: unknown,
      ) => {
        Process(metadata?: unknown): Call;
        close(): void;
      };
      const other = new Processor(new URL(guarded.url).host, grpc.credentials.createInsecure());
      try {
        const refused = await new Promise<{ code?: number }>((resolve) => {
          const call = other.Process();
          call.on('error', (err) => resolve(err as { code?: number }));
          call.on('end', () => resolve({}));
          call.write(envoyExchange('/v1/chat/completions', Buffer.from('{}'))[0] as Json);
        });
        expect(refused.code).toBe(grpc.status.UNAUTHENTICATED);
        const metadata = new grpc.Metadata();
        metadata.set('x-spillway-token', 'recall-token');
        const call = other.Process(metadata);
        const answered = await new Promise<Json>((resolve, reject) => {
          call.on('data', (m) => {
            resolve(m);
            call.end();
          });
          call.on('error', reject);
          call.write(envoyExchange('/v1/chat/completions', Buffer.from('{}'))[0] as Json);
        });
        expect(Object.keys(answered)).toContain('request_headers');
      } finally {
        other.close();
        await guarded.close();
      }
    });

    it('refuses a message over its bound (INVALID_ARGUMENT), reading no more of it', async () => {
      const small = await startExtProc({ compressUrl: `${proxy.url}/v1/compress`, maxMessageBytes: 4096 });
      const require = createRequire(join(root, 'package.json'));
      const grpc = require('@grpc/grpc-js');
      const Processor = client.constructor as new (
        address: string,
        credentials: unknown,
      ) => {
        Process(): Call;
        close(): void;
      };
      const other = new Processor(new URL(small.url).host, grpc.credentials.createInsecure());
      try {
        const body = Buffer.from(JSON.stringify({ model: 'gpt-4o', messages: chatConversation('big', 1) }));
        const err = await new Promise<{ code?: number }>((resolve) => {
          const call = other.Process();
          call.on('data', () => {});
          call.on('error', (e) => resolve(e as { code?: number }));
          call.on('end', () => resolve({}));
          for (const m of envoyExchange('/v1/chat/completions', body)) call.write(m);
          call.end();
        });
        expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      } finally {
        other.close();
        await small.close();
      }
    });

    it('lets everything else go on unchanged: another path, a body with nothing to collapse', async () => {
      const body = Buffer.from(JSON.stringify({ input: 'hello' }));
      const [, embeddings] = await exchange(envoyExchange('/v1/embeddings', body));
      expect(bodyAnswer(embeddings).body_mutation).toBeUndefined();
      const plain = Buffer.from(
        JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
      );
      const [, chat] = await exchange(envoyExchange('/v1/chat/completions', plain));
      expect(bodyAnswer(chat).body_mutation).toBeUndefined();
    });
  },
);
