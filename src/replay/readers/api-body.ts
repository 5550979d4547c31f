import { SpillwayError } from '../../errors.js';
import { ADAPTERS, type ApiName, PROVIDERS } from '../../providers/index.js';
import { asRecord, type ToolResult } from '../../text/index.js';
import type { TranscriptReader } from '../transcript.js';
import { parseDocument } from './json-lines.js';

function parse(text: string): Record<string, unknown> | undefined {
  return asRecord(parseDocument(text));
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

/** A saved request body of one API, read as a transcript. */
function bodyReader(api: ApiName, expects: string): TranscriptReader {
  return {
    format: api,
    expects,
    detect(text) {
      const body = parse(text);
      return body !== undefined && PROVIDERS.savedApiOf(body) === api;
    },
    read(text, name) {
      const body = parse(text);
      const view = body && PROVIDERS.savedApiOf(body) === api ? ADAPTERS[api].view(body) : null;
      if (!view) throw new SpillwayError('SPILLWAY_BAD_INPUT', `${name}: not ${expects}`);
      const turns = turnsByMessage(view.results);
      const model = typeof body?.model === 'string' ? body.model : undefined;
      return [{ id: name, ...(model ? { model } : {}), turns }];
    },
  };
}

/** A reader for each provider whose saved request bodies replay reads (their spec says how). */
export const API_BODY_READERS: readonly TranscriptReader[] = PROVIDERS.specs.flatMap((spec) =>
  spec.saved ? [bodyReader(spec.api, spec.saved.expects)] : [],
);
