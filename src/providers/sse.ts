import { SpillwayError } from '../errors.js';

/** One server-sent event: its name (if any), its data, its bytes as received. */
export interface SseEvent {
  event: string | undefined;
  data: string;
  raw: string;
}

/** An event longer than this is not one a model API sends: the answer is refused, not held. */
export const MAX_EVENT_BYTES = 8 << 20;

/**
 * The events of an SSE stream as they complete, each bounded in size.
 *
 * @example
 * for await (const ev of sseEvents(upstream.body)) console.log(ev.event, ev.data);
 */
export async function* sseEvents(body: AsyncIterable<Buffer>): AsyncGenerator<SseEvent> {
  let pending = '';
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    pending += decoder.decode(chunk, { stream: true });
    for (let end = blankLine(pending); end >= 0; end = blankLine(pending)) {
      const cut = end + (pending.startsWith('\r\n\r\n', end) ? 4 : 2);
      const ev = parseEvent(pending.slice(0, end), pending.slice(0, cut));
      pending = pending.slice(cut);
      if (ev) yield ev;
    }
    if (pending.length > MAX_EVENT_BYTES)
      throw new SpillwayError(
        'SPILLWAY_BAD_INPUT',
        `an event of the model's stream is over ${MAX_EVENT_BYTES} bytes`,
      );
  }
  const rest = pending + decoder.decode();
  const ev = parseEvent(rest, rest);
  if (ev) yield ev;
}

function blankLine(text: string): number {
  const lf = text.indexOf('\n\n');
  const crlf = text.indexOf('\r\n\r\n');
  if (lf < 0) return crlf;
  return crlf < 0 ? lf : Math.min(lf, crlf);
}

/** An event from its text (`raw` is it with the blank line that ended it: the bytes passed on). */
function parseEvent(text: string, raw: string): SseEvent | undefined {
  if (text.trim() === '') return undefined;
  let event: string | undefined;
  const data: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
  }
  return { event, data: data.join('\n'), raw };
}

/**
 * An event's bytes: `event:` when named, one `data:` line of JSON.
 *
 * @example
 * sseText('message_stop', { type: 'message_stop' }); // 'event: message_stop\ndata: {"type":"message_stop"}\n\n'
 */
export function sseText(event: string | undefined, data: unknown): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** An event's data as a JSON object, or undefined. */
export function eventJson(ev: SseEvent): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(ev.data);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
