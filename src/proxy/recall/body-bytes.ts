import type { Json } from '../../providers/index.js';
import { arrayItemSpans, spliceJson, valueBytes } from '../../text/index.js';

const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;

/**
 * The body with `itemJson` appended to its top-level array `key` (`tools`, or one added at the
 * end when the body has none): the client's bytes before the array's end are kept, so a prefix
 * the provider cached stays a prefix. Re-serialised only when the bytes do not scan.
 *
 * @example
 * appendToArray(Buffer.from('{"tools":[{"a":1}]}'), JSON.parse('{"tools":[{"a":1}]}'), 'tools', ['{"b":2}']);
 * // '{"tools":[{"a":1},{"b":2}]}'
 */
export function appendToArray(raw: Buffer, parsed: Json, key: string, itemJson: readonly string[]): Buffer {
  const items = itemJson.join(',');
  const current = parsed[key];
  if (Array.isArray(current)) {
    const [bytes] = valueBytes(raw, parsed, [{ holder: parsed, field: key }]);
    if (bytes && bytes[0] === OPEN_ARRAY) {
      const close = bytes.lastIndexOf(']');
      const json = `${bytes.toString('utf8', 0, close).trimEnd()}${current.length > 0 ? ',' : ''}${items}]`;
      const spliced = spliceJson(raw, parsed, [{ holder: parsed, field: key, value: undefined, json }]);
      if (spliced) return spliced;
    }
  } else if (current === undefined) {
    const end = raw.lastIndexOf(CLOSE_OBJECT);
    if (end > 0) {
      const before = raw.toString('utf8', 0, end).trimEnd();
      const comma = before.endsWith('{') ? '' : ',';
      return Buffer.concat([Buffer.from(`${before}${comma}"${key}":[${items}]`), raw.subarray(end)]);
    }
  }
  const whole = {
    ...parsed,
    [key]: [...(Array.isArray(current) ? current : []), ...itemJson.map((j) => JSON.parse(j))],
  };
  return Buffer.from(JSON.stringify(whole), 'utf8');
}

/**
 * The conversation's next body: `items` appended after the last item of its array `key`
 * (messages, input, contents), every earlier byte as it was.
 *
 * @example
 * appendTurn(raw, parsed, 'messages', [assistant, toolResults]);
 */
export function appendTurn(raw: Buffer, parsed: Json, key: string, items: readonly unknown[]): Buffer {
  const json = items.map((i) => JSON.stringify(i));
  const spans = arrayItemSpans(raw, key);
  const last = spans?.at(-1);
  if (last)
    return Buffer.concat([
      raw.subarray(0, last.end),
      Buffer.from(`,${json.join(',')}`),
      raw.subarray(last.end),
    ]);
  // A Responses `input` given as a string is the first user message.
  const current = parsed[key];
  const head =
    typeof current === 'string'
      ? [{ role: 'user', content: current }]
      : Array.isArray(current)
        ? current
        : [];
  return Buffer.from(JSON.stringify({ ...parsed, [key]: [...head, ...items] }), 'utf8');
}
