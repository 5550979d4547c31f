import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { listenOnLoopback } from './loopback.js';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  json: unknown;
}

export interface TestUpstream {
  url: string;
  seen: SeenRequest[];
  /** Resolves when a request's connection closed before its response ended. */
  aborted: Promise<string>;
  /** Send SSE events this many ms apart (for the disconnect test). */
  eventGapMs: number;
  /** When set, every answer's usage reports this many input tokens for the request body. */
  inputTokens?: (body: Buffer) => number;
  /** Gzip JSON answers for clients that accept it, as the providers do. */
  gzip?: boolean;
  close(): Promise<void>;
}

/** One server-sent event. */
export const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export const ANSWER_TEXT = ['The build ', 'failed at ', 'line 1999.'];

function anthropicEvents(): string[] {
  const message = {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 0 },
  };
  return [
    sse('message_start', { type: 'message_start', message }),
    sse('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
    ...ANSWER_TEXT.map((text) =>
      sse('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text },
      }),
    ),
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 3 },
    }),
    sse('message_stop', { type: 'message_stop' }),
  ];
}

function chatEvents(): string[] {
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return [
    chunk({ role: 'assistant', content: '' }, null),
    ...ANSWER_TEXT.map((t) => chunk({ content: t }, null)),
    chunk({}, 'stop'),
    'data: [DONE]\n\n',
  ];
}

function responseObject(status: string, text: string) {
  return {
    id: 'resp_test',
    object: 'response',
    created_at: 1,
    status,
    model: 'gpt-5',
    output: text
      ? [
          {
            type: 'message',
            id: 'msg_1',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text, annotations: [] }],
          },
        ]
      : [],
    usage: { input_tokens: 10, output_tokens: 3, total_tokens: 13 },
  };
}

function responsesEvents(): string[] {
  let n = 0;
  return [
    sse('response.created', {
      type: 'response.created',
      sequence_number: n++,
      response: responseObject('in_progress', ''),
    }),
    ...ANSWER_TEXT.map((delta) =>
      sse('response.output_text.delta', {
        type: 'response.output_text.delta',
        sequence_number: n++,
        item_id: 'msg_1',
        output_index: 0,
        content_index: 0,
        delta,
      }),
    ),
    sse('response.completed', {
      type: 'response.completed',
      sequence_number: n++,
      response: responseObject('completed', ANSWER_TEXT.join('')),
    }),
  ];
}

/** A Gemini answer chunk: text and usage. */
function geminiChunk(text: string, input: number | undefined) {
  return {
    candidates: [
      {
        content: { role: 'model', parts: [{ text }] },
        index: 0,
        ...(text.endsWith('.') ? { finishReason: 'STOP' } : {}),
      },
    ],
    usageMetadata: {
      promptTokenCount: input ?? 10,
      candidatesTokenCount: 3,
      totalTokenCount: (input ?? 10) + 3,
    },
    modelVersion: 'gemini-2.5-pro',
  };
}

/** Answers Gemini's generateContent (JSON), streamGenerateContent (SSE with alt=sse, else a JSON array) and countTokens. */
function answerGemini(method: string, url: string, res: ServerResponse, input: number | undefined): void {
  if (method === 'countTokens') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ totalTokens: input ?? 1234 }));
    return;
  }
  const chunks = ANSWER_TEXT.map((t) => geminiChunk(t, input));
  if (method === 'generateContent') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(geminiChunk(ANSWER_TEXT.join(''), input)));
  } else if (url.includes('alt=sse')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\r\n\r\n`);
    res.end();
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(chunks));
  }
}

/** An answer or event with its reported input tokens set to `n` (every API's field for it). */
function withInputTokens(text: string, n: number): string {
  return text
    .replace(/"input_tokens":\d+/g, `"input_tokens":${n}`)
    .replace(/"prompt_tokens":\d+/g, `"prompt_tokens":${n}`)
    .replace(
      /"finish_reason":"stop"\}\]\}/,
      `"finish_reason":"stop"}],"usage":{"prompt_tokens":${n},"completion_tokens":3}}`,
    );
}

/** The JSON answers of the fake APIs. */
export const ANSWERS = {
  '/v1/messages': {
    id: 'msg_test',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: ANSWER_TEXT.join('') }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 3 },
  },
  '/v1/messages/count_tokens': { input_tokens: 1234 },
  '/v1/chat/completions': {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: ANSWER_TEXT.join(''), refusal: null },
        finish_reason: 'stop',
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
  },
  '/v1/responses': responseObject('completed', ANSWER_TEXT.join('')),
  '/v1/models': { object: 'list', data: [{ id: 'gpt-test', object: 'model', created: 1, owned_by: 'test' }] },
} as const;

/**
 * A local stand-in for the Anthropic and OpenAI APIs: records every request and answers
 * /v1/messages, /v1/messages/count_tokens, /v1/chat/completions and /v1/responses, streaming
 * (SSE) when the body asks for it.
 */
export async function startUpstream(): Promise<TestUpstream> {
  let resolveAborted!: (url: string) => void;
  const aborted = new Promise<string>((resolve) => {
    resolveAborted = resolve;
  });
  const upstream: TestUpstream = { url: '', seen: [], aborted, eventGapMs: 0, close: async () => {} };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    let json: unknown;
    try {
      json = body.length ? JSON.parse(body.toString('utf8')) : undefined;
    } catch {
      json = undefined;
    }
    const url = req.url ?? '/';
    upstream.seen.push({ method: req.method ?? '', url, headers: req.headers, body, json });
    res.on('close', () => {
      if (!res.writableFinished) resolveAborted(url);
    });
    const path = url.split('?')[0] as keyof typeof ANSWERS;
    const stream = (json as { stream?: boolean } | undefined)?.stream === true;
    const input = upstream.inputTokens?.(body);
    const gemini = /:(generateContent|streamGenerateContent|countTokens)$/.exec(path);
    if (gemini) return answerGemini(gemini[1] as string, url, res, input);
    const usage = (text: string) => (input === undefined ? text : withInputTokens(text, input));
    if (stream && (path === '/v1/messages' || path === '/v1/chat/completions' || path === '/v1/responses')) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const events =
        path === '/v1/messages'
          ? anthropicEvents()
          : path === '/v1/chat/completions'
            ? chatEvents()
            : responsesEvents();
      for (const event of events) {
        if (res.destroyed) return;
        res.write(usage(event));
        if (upstream.eventGapMs) await new Promise((r) => setTimeout(r, upstream.eventGapMs));
      }
      res.end();
      return;
    }
    const answer = ANSWERS[path];
    if (!answer) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${url}` } }));
      return;
    }
    const text = usage(JSON.stringify(answer));
    if (upstream.gzip && String(req.headers['accept-encoding'] ?? '').includes('gzip')) {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'x-upstream': 'yes',
      });
      res.end(gzipSync(text));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'yes' });
    res.end(text);
  });
  Object.assign(upstream, await listenOnLoopback(server));
  return upstream;
}
