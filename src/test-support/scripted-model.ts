import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback.js';
import { chatAnswer, chatTurn } from './scripted-chat.js';
import { type SeenRequest, sse } from './upstream.js';

/** What a request asks the model, reduced to what a script decides on. */
export interface ModelTurn {
  api: 'anthropic' | 'openai-responses' | 'openai-chat' | 'gemini';
  /** The names of the tools the client offered (a namespaced one as `namespace:name`). */
  tools: string[];
  /**
   * The newest tool output in the request, if its last item is one; `context` is what the client
   * put beside it for the model (Codex's hook context: messages between the call and its output).
   */
  lastOutput?: { callId: string; text: string; context?: string };
}

/** The model's next move: call a tool, or answer and end the turn. */
export type ModelStep =
  | { kind: 'call'; callId: string; name: string; namespace?: string; input: Record<string, unknown> }
  /** A freeform tool call (Responses `custom_tool_call`): Codex's JavaScript `exec`, `apply_patch`. */
  | { kind: 'custom'; callId: string; name: string; namespace?: string; input: string }
  | { kind: 'answer'; text: string };

export interface ScriptedModel {
  url: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b: Json) => (typeof b.text === 'string' ? b.text : ''))
    .filter(Boolean)
    .join('\n');
}

/**
 * A request body reduced to a `ModelTurn`, as the scripted model reads it.
 *
 * @example
 * turnOf('anthropic', seen.json).lastOutput?.text;
 */
export function turnOf(api: ModelTurn['api'], body: Json): ModelTurn {
  return api === 'anthropic'
    ? anthropicTurn(body)
    : api === 'gemini'
      ? geminiTurn(body)
      : api === 'openai-chat'
        ? chatTurn(body)
        : responsesTurn(body);
}

function geminiTurn(body: Json): ModelTurn {
  const tools = ((body.tools as Json[] | undefined) ?? []).flatMap((t) =>
    ((t.functionDeclarations as Json[] | undefined) ?? []).map((f) => String(f.name)),
  );
  const last = (body.contents as Json[] | undefined)?.at(-1);
  const responses = Array.isArray(last?.parts)
    ? (last.parts as Json[]).map((p) => p.functionResponse as Json | undefined).filter((r) => r !== undefined)
    : [];
  const fr = responses.at(-1);
  const response = (fr?.response ?? {}) as Json;
  const text = typeof response.output === 'string' ? response.output : JSON.stringify(response);
  return {
    api: 'gemini',
    tools,
    ...(fr ? { lastOutput: { callId: String(fr.id ?? fr.name), text } } : {}),
  };
}

/** A value of a JSON schema (Gemini's OBJECT/STRING/... or lower-case types): the first enum value, zeros, empty strings. */
function sampleOf(schema: unknown): unknown {
  const s = (schema ?? {}) as Json;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  switch (String(s.type ?? 'object').toLowerCase()) {
    case 'object':
      return Object.fromEntries(
        Object.entries((s.properties ?? {}) as Json).map(([k, v]) => [k, sampleOf(v)]),
      );
    case 'array':
      return [];
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    default:
      return '';
  }
}

/** A step for an API with no freeform tool calls. */
function plainStep(step: ModelStep): Exclude<ModelStep, { kind: 'custom' }> {
  if (step.kind === 'custom') throw new Error('a custom tool call is a Responses API shape');
  return step;
}

/** One Gemini answer chunk: a function call or text, finished. */
function geminiChunk(any: ModelStep): Json {
  const step = plainStep(any);
  const part =
    step.kind === 'call'
      ? { functionCall: { id: step.callId, name: step.name, args: step.input } }
      : { text: step.text };
  return {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 },
    modelVersion: 'gemini-2.5-pro',
  };
}

function anthropicTurn(body: Json): ModelTurn {
  const tools = ((body.tools as Json[] | undefined) ?? []).map((t) => String(t.name));
  const last = (body.messages as Json[] | undefined)?.at(-1);
  const results = Array.isArray(last?.content)
    ? (last.content as Json[]).filter((b) => b.type === 'tool_result')
    : [];
  const result = results.at(-1);
  return {
    api: 'anthropic',
    tools,
    ...(result ? { lastOutput: { callId: String(result.tool_use_id), text: textOf(result.content) } } : {}),
  };
}

function responsesTurn(body: Json): ModelTurn {
  // Codex's default model sends "responses-lite": no `tools`, the tools in a leading
  // `additional_tools` input item instead.
  const offered = [
    ...((body.tools as Json[] | undefined) ?? []),
    ...((Array.isArray(body.input) ? body.input : []) as Json[])
      .filter((i) => i.type === 'additional_tools')
      .flatMap((i) => (i.tools as Json[] | undefined) ?? []),
  ];
  const tools = offered.flatMap((t) =>
    // Codex offers an MCP server's tools as a namespace of functions.
    Array.isArray(t.tools)
      ? (t.tools as Json[]).map((f) => `${t.name}:${f.name}`)
      : [String(t.name ?? t.type)],
  );
  const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
  const last = input.at(-1);
  const isOutput = last?.type === 'function_call_output' || last?.type === 'custom_tool_call_output';
  if (!isOutput || !last) return { api: 'openai-responses', tools };
  const call = input.findLastIndex((i) => i.call_id === last.call_id && i !== last);
  const context = input
    .slice(call + 1, -1)
    .filter((i) => i.type === 'message')
    .map((i) => textOf(i.content))
    .join('\n');
  return {
    api: 'openai-responses',
    tools,
    lastOutput: { callId: String(last.call_id), text: textOf(last.output), ...(context ? { context } : {}) },
  };
}

function anthropicEvents(any: ModelStep, model: string, n: number): string[] {
  const step = plainStep(any);
  const start = {
    type: 'message_start',
    message: {
      id: `msg_scripted_${n}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 0 },
    },
  };
  const block =
    step.kind === 'call'
      ? { type: 'tool_use', id: step.callId, name: step.name, input: {} }
      : { type: 'text', text: '' };
  const delta =
    step.kind === 'call'
      ? { type: 'input_json_delta', partial_json: JSON.stringify(step.input) }
      : { type: 'text_delta', text: step.text };
  return [
    sse('message_start', start),
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: block }),
    sse('content_block_delta', { type: 'content_block_delta', index: 0, delta }),
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: step.kind === 'call' ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: 10 },
    }),
    sse('message_stop', { type: 'message_stop' }),
  ];
}

function anthropicMessage(any: ModelStep, model: string, n: number): Json {
  const step = plainStep(any);
  return {
    id: `msg_scripted_${n}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [
      step.kind === 'call'
        ? { type: 'tool_use', id: step.callId, name: step.name, input: step.input }
        : { type: 'text', text: step.text },
    ],
    stop_reason: step.kind === 'call' ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 10 },
  };
}

function responsesEvents(step: ModelStep, n: number): string[] {
  const item =
    step.kind === 'custom'
      ? {
          type: 'custom_tool_call',
          id: `ctc_${n}`,
          call_id: step.callId,
          ...(step.namespace ? { namespace: step.namespace } : {}),
          name: step.name,
          input: step.input,
          status: 'completed',
        }
      : step.kind === 'call'
        ? {
            type: 'function_call',
            id: `fc_${n}`,
            call_id: step.callId,
            ...(step.namespace ? { namespace: step.namespace } : {}),
            name: step.name,
            arguments: JSON.stringify(step.input),
            status: 'completed',
          }
        : {
            type: 'message',
            id: `msg_${n}`,
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: step.text, annotations: [] }],
          };
  const response = (status: string, output: unknown[]) => ({
    id: `resp_${n}`,
    object: 'response',
    created_at: 1,
    status,
    model: 'gpt-5',
    output,
    usage: {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 110,
    },
  });
  // A message streams as the API sends it (added, its text as a delta, done): the AI SDK builds
  // the text from the delta.
  const text =
    step.kind === 'answer'
      ? [
          sse('response.output_item.added', {
            type: 'response.output_item.added',
            output_index: 0,
            item: { ...item, status: 'in_progress', content: [] },
          }),
          sse('response.content_part.added', {
            type: 'response.content_part.added',
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [] },
          }),
          sse('response.output_text.delta', {
            type: 'response.output_text.delta',
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            delta: step.text,
          }),
        ]
      : [];
  return [
    sse('response.created', { type: 'response.created', response: response('in_progress', []) }),
    ...text,
    sse('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }),
    sse('response.completed', { type: 'response.completed', response: response('completed', [item]) }),
  ];
}

/**
 * A model API on loopback that plays a script: Anthropic Messages (SSE or JSON, and
 * count_tokens), OpenAI Chat and Responses (SSE or JSON) and Gemini (generateContent, streamGenerateContent,
 * countTokens). Each request is reduced to a `ModelTurn` and the
 * script says the next step, so a real agent can be driven through tool calls to an answer.
 * Every request is recorded as it arrived.
 */
export async function startScriptedModel(script: (turn: ModelTurn) => ModelStep): Promise<ScriptedModel> {
  const model: ScriptedModel = { url: '', seen: [], close: async () => {} };
  let responses = 0;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    let json: Json = {};
    try {
      json = body.length ? JSON.parse(body.toString('utf8')) : {};
    } catch {}
    const url = req.url ?? '/';
    model.seen.push({ method: req.method ?? '', url, headers: req.headers, body, json });
    const path = url.split('?')[0];
    const send = (status: number, type: string, text: string) => {
      res.writeHead(status, { 'content-type': type });
      res.end(text);
    };
    if (req.method !== 'POST') return send(404, 'application/json', '{"error":{"message":"not here"}}');
    if (path === '/v1/messages/count_tokens')
      return send(200, 'application/json', JSON.stringify({ input_tokens: 100 }));
    if (path === '/v1/messages') {
      const step = script(anthropicTurn(json));
      const name = String(json.model ?? 'claude-sonnet-4-5');
      if (json.stream !== true)
        return send(200, 'application/json', JSON.stringify(anthropicMessage(step, name, ++responses)));
      return send(200, 'text/event-stream', anthropicEvents(step, name, ++responses).join(''));
    }
    if (path === '/v1/chat/completions') {
      const usage = (json.stream_options as Json | undefined)?.include_usage === true;
      const answer = chatAnswer(script(chatTurn(json)), ++responses, json.stream === true, usage);
      return send(200, answer.type, answer.text);
    }
    if (path === '/v1/responses') {
      const events = responsesEvents(script(responsesTurn(json)), ++responses);
      // Not streamed: the response that response.completed carries.
      if (json.stream !== true) {
        const last = events.at(-1) as string;
        const data = JSON.parse(last.slice(last.indexOf('data: ') + 6)) as Json;
        return send(200, 'application/json', JSON.stringify(data.response));
      }
      return send(200, 'text/event-stream', events.join(''));
    }
    const gemini = /:(generateContent|streamGenerateContent|countTokens)$/.exec(path ?? '');
    if (gemini?.[1] === 'countTokens') return send(200, 'application/json', '{"totalTokens":100}');
    if (gemini) {
      // The client's own side requests ask for JSON of a schema (its model router): an answer
      // that fits it, or the client retries with back-off for minutes.
      const config = (json.generationConfig ?? {}) as Json;
      const schema = config.responseJsonSchema ?? config.responseSchema;
      const step: ModelStep = schema
        ? { kind: 'answer', text: JSON.stringify(sampleOf(schema)) }
        : script(geminiTurn(json));
      const chunk = geminiChunk(step);
      if (gemini[1] === 'generateContent') return send(200, 'application/json', JSON.stringify(chunk));
      return url.includes('alt=sse')
        ? send(200, 'text/event-stream', `data: ${JSON.stringify(chunk)}\r\n\r\n`)
        : send(200, 'application/json', JSON.stringify([chunk]));
    }
    send(404, 'application/json', JSON.stringify({ error: { message: `no route ${url}` } }));
  });
  Object.assign(model, await listenOnLoopback(server));
  return model;
}
