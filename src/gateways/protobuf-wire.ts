/**
 * The protocol buffers wire format, as much as the Envoy messages spillway reads and writes
 * need: varints and length-delimited fields (strings, bytes, messages). Unknown fields are
 * skipped, as protobuf asks.
 */

/** One field read off the wire: a varint's value, or a length-delimited field's bytes. */
export type WireField = { no: number; varint: number } | { no: number; bytes: Buffer };

function readVarint(buf: Buffer, at: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (let i = at; i < buf.length && i < at + 10; i++) {
    const byte = buf[i] as number;
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) return [value, i + 1];
    scale *= 128;
  }
  throw new Error('protobuf: a varint runs past its message');
}

/**
 * The fields of one message, in order (repeated fields appear once each).
 *
 * @example
 * for (const f of wireFields(message)) if (f.no === 4 && 'bytes' in f) body = f.bytes;
 */
export function* wireFields(buf: Buffer): Generator<WireField> {
  let at = 0;
  while (at < buf.length) {
    const [tag, next] = readVarint(buf, at);
    const no = Math.floor(tag / 8);
    const wire = tag % 8;
    at = next;
    if (wire === 0) {
      const [varint, after] = readVarint(buf, at);
      at = after;
      yield { no, varint };
    } else if (wire === 2) {
      const [length, after] = readVarint(buf, at);
      if (after + length > buf.length) throw new Error('protobuf: a field runs past its message');
      yield { no, bytes: buf.subarray(after, after + length) };
      at = after + length;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`protobuf: wire type ${wire} is not supported`);
  }
}

function varint(value: number): Buffer {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

/**
 * A length-delimited field: a string, bytes or an encoded message under field `no`.
 *
 * @example
 * const value = Buffer.concat([lengthField(1, Buffer.from('content-length')), lengthField(3, Buffer.from('42'))]);
 */
export function lengthField(no: number, bytes: Buffer): Buffer {
  return Buffer.concat([varint(no * 8 + 2), varint(bytes.length), bytes]);
}

/**
 * A varint field (an enum, a bool, a number) under field `no`.
 *
 * @example
 * varintField(3, 2); // append_action: OVERWRITE_IF_EXISTS_OR_ADD
 */
export function varintField(no: number, value: number): Buffer {
  return Buffer.concat([varint(no * 8), varint(value)]);
}
