import { SpillwayError } from '../../errors.js';
import { ADAPTERS, type ApiName } from '../../formats/index.js';
import { asRecord, type ToolResult } from '../../text/index.js';
import type { TranscriptFormat, TranscriptReader } from '../transcript.js';
import { parseDocument } from './json-lines.js';

function parse(text: string): Record<string, unknown> | undefined {
  return asRecord(parseDocument(text));
}

/** Which API a request body is, from what its messages hold. */
export function apiOfBody(body: Record<string, unknown>): ApiName | undefined {
  if (Array.isArray(body.messages)) {
    const blocks = body.messages.flatMap((m) =>
      Array.isArray(asRecord(m)?.content) ? (asRecord(m)?.content as unknown[]) : [],
    );
    if (blocks.some((b) => asRecord(b)?.type === 'tool_result' || asRecord(b)?.type === 'tool_use'))
      return 'anthropic';
    if (body.messages.some((m) => asRecord(m)?.role === 'tool' || Array.isArray(asRecord(m)?.tool_calls)))
      return 'openai-chat';
    return undefined;
  }
  if (
    Array.isArray(body.input) &&
    body.input.some((i) => /_call_output$/.test(String(asRecord(i)?.type ?? '')))
  )
    return 'openai-responses';
  return undefined;
}

/**
 * A request's results as a transcript's turns: one turn per message, the results that arrived
 * together, each result's position its turn.
 *
 * @example
 * turnsByMessage(ADAPTERS.gemini.view({ contents })?.results ?? []);
 */
export function turnsByMessage(results: readonly ToolResult[]): ToolResult[][] {
  const turns: ToolResult[][] = [];
  let last = -1;
  for (const r of results) {
    if (r.position !== last) turns.push([]);
    last = r.position;
    turns.at(-1)?.push({ ...r, position: turns.length - 1 });
  }
  return turns;
}

function bodyReader(api: ApiName, format: TranscriptFormat, expects: string): TranscriptReader {
  return {
    format,
    expects,
    detect(text) {
      const body = parse(text);
      return body !== undefined && apiOfBody(body) === api;
    },
    read(text, name) {
      const body = parse(text);
      const view = body && apiOfBody(body) === api ? ADAPTERS[api].view(body) : null;
      if (!view) throw new SpillwayError('SPILLWAY_BAD_INPUT', `${name}: not ${expects}`);
      const turns = turnsByMessage(view.results);
      const model = typeof body?.model === 'string' ? body.model : undefined;
      return [{ id: name, ...(model ? { model } : {}), turns }];
    },
  };
}

/** A saved Anthropic Messages request body. */
export const anthropicBodyReader = bodyReader(
  'anthropic',
  'anthropic',
  'an Anthropic Messages request body (a JSON object with "messages" holding tool_use/tool_result blocks)',
);
/** A saved OpenAI Chat Completions request body. */
export const openaiChatBodyReader = bodyReader(
  'openai-chat',
  'openai-chat',
  'an OpenAI Chat Completions request body (a JSON object with "messages" holding role "tool" messages)',
);
/** A saved OpenAI Responses request body. */
export const openaiResponsesBodyReader = bodyReader(
  'openai-responses',
  'openai-responses',
  'an OpenAI Responses request body (a JSON object with an "input" list holding *_call_output items)',
);
