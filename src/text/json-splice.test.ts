import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayItemSpans, spliceJson } from './json-splice.js';

/** Every object and array in a parsed value, the value itself first. */
function containersOf(value: unknown): object[] {
  const found: object[] = [];
  const walk = (v: unknown) => {
    if (typeof v !== 'object' || v === null) return;
    found.push(v);
    for (const c of Object.values(v)) walk(c);
  };
  walk(value);
  return found;
}

describe('spliceJson', () => {
  it('rewrites only the edited values; every other byte goes out as it came', () => {
    const raw = Buffer.from(
      '{ "model":"m", "n": 9007199254740993, "big": 1e400,\n  "messages": [ {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"LONG OUTPUT","cache_control":{"type":"ephemeral"}}]},\n {"k\\u0041":"caf\\u00e9"} ] }',
    );
    const parsed = JSON.parse(raw.toString('utf8'));
    const block = parsed.messages[0].content[0];
    block.content = 'short';
    const out = spliceJson(raw, parsed, [{ holder: block, field: 'content', value: 'short' }]);
    expect(out?.toString('utf8')).toBe(raw.toString('utf8').replace('"LONG OUTPUT"', '"short"'));
  });

  it('keeps invalid UTF-8 outside the edit byte for byte', () => {
    const raw = Buffer.concat([
      Buffer.from('{"a":"x'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('","b":{"content":"old"}}'),
    ]);
    const parsed = JSON.parse(raw.toString('utf8'));
    const out = spliceJson(raw, parsed, [{ holder: parsed.b, field: 'content', value: 'new' }]);
    const at = raw.indexOf('"old"');
    const expected = Buffer.concat([raw.subarray(0, at), Buffer.from('"new"'), raw.subarray(at + 5)]);
    expect(out?.equals(expected)).toBe(true);
    expect(out?.includes(Buffer.from([0xff, 0xfe]))).toBe(true);
  });

  it('edits the value JSON.parse kept of a name given twice, and several values at once', () => {
    const raw = Buffer.from(
      '{"m":[{"c":"old1"},{"c":"x","c":"old2"}],"m2":1,"m":[{"c":"keep"},{"c":"y","c" : "z"}], "t":{"c":1}}',
    );
    const parsed = JSON.parse(raw.toString());
    parsed.m[1].c = 'NEW';
    parsed.t.c = 'T';
    const out = spliceJson(raw, parsed, [
      { holder: parsed.m[1], field: 'c', value: 'NEW' },
      { holder: parsed.t, field: 'c', value: 'T' },
    ]);
    expect(out?.toString()).toBe(
      '{"m":[{"c":"old1"},{"c":"x","c":"old2"}],"m2":1,"m":[{"c":"keep"},{"c":"y","c" : "NEW"}], "t":{"c":"T"}}',
    );
  });

  it('answers undefined when the field was not in the bytes (the caller serialises)', () => {
    const raw = Buffer.from('{"a":{}}');
    const parsed = JSON.parse(raw.toString());
    expect(spliceJson(raw, parsed, [{ holder: parsed.a, field: 'content', value: 'x' }])).toBeUndefined();
  });

  it('property: splicing equals serialising the edited value, for any JSON and any edited string', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.string(), fc.nat(), (value, text, pick) => {
        const raw = Buffer.from(JSON.stringify({ wrap: value, slot: { content: 'before' } }, null, pick % 3));
        const parsed = JSON.parse(raw.toString('utf8'));
        const holders = containersOf(parsed);
        const holder = holders[pick % holders.length] as Record<string, unknown>;
        const field = Array.isArray(holder) ? 0 : (Object.keys(holder)[0] ?? 'content');
        if (!(field in holder)) return;
        (holder as Record<string | number, unknown>)[field] = text;
        const out = spliceJson(raw, parsed, [{ holder, field, value: text }]);
        expect(JSON.parse(out?.toString('utf8') ?? 'null')).toEqual(parsed);
      }),
      { numRuns: 300 },
    );
  });

  it('property: several edits at once, anywhere in the body, equal serialising the edited body', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 5 }),
        fc.array(fc.tuple(fc.nat(), fc.string()), { minLength: 1, maxLength: 6 }),
        fc.nat(3),
        (value, picks, indent) => {
          const raw = Buffer.from(JSON.stringify({ body: value, tail: [{ content: 'x' }] }, null, indent));
          const parsed = JSON.parse(raw.toString('utf8'));
          const holders = containersOf(parsed);
          const edits = new Map<string, { holder: object; field: string | number; value: string }>();
          for (const [pick, text] of picks) {
            const holder = holders[pick % holders.length] as Record<string | number, unknown>;
            const fields = Array.isArray(holder) ? holder.map((_, i) => i) : Object.keys(holder);
            if (fields.length === 0) continue;
            const field = fields[pick % fields.length] as string | number;
            holder[field] = text;
            edits.set(`${holders.indexOf(holder)}:${field}`, { holder, field, value: text });
          }
          // A holder inside a value another edit replaced is no longer in the body: skip those.
          const reachable = containersOf(parsed);
          if (![...edits.values()].every((e) => reachable.includes(e.holder))) return;
          const out = spliceJson(raw, parsed, [...edits.values()]);
          expect(out).toBeDefined();
          expect(JSON.parse(out?.toString('utf8') ?? 'null')).toEqual(parsed);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('arrayItemSpans', () => {
  it('gives the span of each item of the array JSON.parse kept, a name given twice included', () => {
    const raw = Buffer.from('{"messages":[9], "model":"m",\n "messages" : [ {"a":[1,2]} , "s\\"]" ,3 ] }');
    const spans = arrayItemSpans(raw, 'messages');
    expect(spans?.map(({ start, end }) => raw.toString('utf8', start, end))).toEqual([
      '{"a":[1,2]}',
      '"s\\"]"',
      '3',
    ]);
    expect(arrayItemSpans(Buffer.from('{"messages":{"a":1}}'), 'messages')).toBeUndefined();
    expect(arrayItemSpans(Buffer.from('[1,2]'), 'messages')).toBeUndefined();
  });

  it('property: the spans parse to the items, for any items and spacing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 3 })),
        fc.jsonValue({ maxDepth: 2 }),
        fc.nat(3),
        (items, other, indent) => {
          const raw = Buffer.from(JSON.stringify({ other, messages: items, after: other }, null, indent));
          const spans = arrayItemSpans(raw, 'messages');
          expect(spans?.map(({ start, end }) => JSON.parse(raw.toString('utf8', start, end)))).toEqual(
            JSON.parse(raw.toString('utf8')).messages,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
