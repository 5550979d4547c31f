import { lengthField, varintField, wireFields } from './protobuf-wire.js';

/**
 * Envoy's ext_proc messages (envoy/service/ext_proc/v3/external_processor.proto), the fields
 * spillway uses: which phase a ProcessingRequest is in, its headers and its body; and the
 * ProcessingResponse of that phase, with a body mutation and header mutations.
 */

/** The phases of a ProcessingRequest, by their field numbers in its `request` oneof. */
const PHASES = {
  2: 'request_headers',
  3: 'response_headers',
  4: 'request_body',
  5: 'response_body',
  6: 'request_trailers',
  7: 'response_trailers',
} as const;
export type Phase = (typeof PHASES)[keyof typeof PHASES];

/** The field of a phase's answer in ProcessingResponse's `response` oneof. */
const ANSWER_FIELD: Readonly<Record<Phase, number>> = {
  request_headers: 1,
  response_headers: 2,
  request_body: 3,
  response_body: 4,
  request_trailers: 5,
  response_trailers: 6,
};

export interface ProcessingRequest {
  phase: Phase;
  /** HttpHeaders' headers (a HeaderMap of HeaderValue: key, value or raw_value), names lowercase. */
  headers: Map<string, string>;
  /** HttpBody's body. */
  body: Buffer;
  endOfStream: boolean;
}

function headerOf(value: Buffer): [string, string] | undefined {
  let key = '';
  let text = '';
  for (const f of wireFields(value))
    if ('bytes' in f && f.no === 1) key = f.bytes.toString('utf8');
    else if ('bytes' in f && (f.no === 2 || f.no === 3)) text = f.bytes.toString('utf8');
  return key ? [key.toLowerCase(), text] : undefined;
}

/**
 * Reads a ProcessingRequest: its phase, and its headers or body. Undefined for one with no
 * phase spillway knows.
 *
 * @example
 * decodeProcessingRequest(message)?.phase; // 'request_body'
 */
export function decodeProcessingRequest(message: Buffer): ProcessingRequest | undefined {
  for (const f of wireFields(message)) {
    const phase = PHASES[f.no as keyof typeof PHASES];
    if (!phase || !('bytes' in f)) continue;
    const out: ProcessingRequest = { phase, headers: new Map(), body: Buffer.alloc(0), endOfStream: false };
    for (const g of wireFields(f.bytes)) {
      if (phase.endsWith('headers') && g.no === 1 && 'bytes' in g)
        for (const h of wireFields(g.bytes)) {
          const header = h.no === 1 && 'bytes' in h ? headerOf(h.bytes) : undefined;
          if (header) out.headers.set(header[0], header[1]);
        }
      else if (phase.endsWith('body') && g.no === 1 && 'bytes' in g) out.body = g.bytes;
      const endField = phase.endsWith('body') ? 2 : 3;
      if (g.no === endField && 'varint' in g) out.endOfStream = g.varint !== 0;
    }
    return out;
  }
  return undefined;
}

/** What a phase's answer changes: a new body, and headers set (overwritten or added). */
export interface Mutation {
  body?: Buffer;
  setHeaders?: readonly [string, string][];
}

/** HeaderAppendAction OVERWRITE_IF_EXISTS_OR_ADD. */
const OVERWRITE = 2;

/**
 * The ProcessingResponse answering `phase`: CONTINUE with no change, or with the mutation (a
 * CommonResponse's body_mutation and header_mutation; trailers take a header mutation only).
 *
 * @example
 * encodeProcessingResponse('request_body', { body, setHeaders: [['content-length', String(body.length)]] });
 */
export function encodeProcessingResponse(phase: Phase, mutation: Mutation = {}): Buffer {
  const headerMutation = mutation.setHeaders?.length
    ? Buffer.concat(
        mutation.setHeaders.map(([key, value]) =>
          lengthField(
            1,
            Buffer.concat([
              lengthField(
                1,
                Buffer.concat([lengthField(1, Buffer.from(key)), lengthField(3, Buffer.from(value))]),
              ),
              varintField(3, OVERWRITE),
            ]),
          ),
        ),
      )
    : undefined;
  let inner: Buffer;
  if (phase.endsWith('trailers')) inner = headerMutation ? lengthField(1, headerMutation) : Buffer.alloc(0);
  else {
    const common = Buffer.concat([
      ...(headerMutation ? [lengthField(2, headerMutation)] : []),
      ...(mutation.body ? [lengthField(3, lengthField(1, mutation.body))] : []),
    ]);
    inner = lengthField(1, common);
  }
  return lengthField(ANSWER_FIELD[phase], inner);
}
