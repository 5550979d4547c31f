import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sumUsage, type TurnPart } from '../../providers/index.js';
import { arrayItemSpans } from '../../text/index.js';
import { appendToArray, appendTurn } from './body-bytes.js';
import { decideTurn, MAX_RECALL_ROUNDS } from './turn.js';

const part = (kind: TurnPart['kind'], n: number): TurnPart => ({ kind, item: { n } });

describe('decideTurn', () => {
  it('passes a turn with no recall, answers one whose recall comes first, cuts one whose agent call came first', () => {
    expect(decideTurn([part('other', 1), part('agent', 2)], 0)).toEqual({ action: 'pass' });
    expect(decideTurn([part('other', 1), part('recall', 2), part('agent', 3), part('recall', 4)], 0)).toEqual(
      {
        action: 'recall',
        history: [part('other', 1), part('recall', 2), part('recall', 4)],
      },
    );
    expect(decideTurn([part('agent', 1), part('recall', 2), part('agent', 3)], 0)).toEqual({
      action: 'strip',
      kept: [part('agent', 1)],
      agentCalls: true,
    });
  });

  it('cuts at the bound whatever the turn', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<TurnPart['kind']>('other', 'agent', 'recall')), (kinds) => {
        const parts = kinds.map(part);
        const decision = decideTurn(parts, MAX_RECALL_ROUNDS);
        expect(decision.action).toBe(kinds.includes('recall') ? 'strip' : 'pass');
        // The agent never gets a recall call.
        if (decision.action === 'strip') expect(decision.kept.every((p) => p.kind !== 'recall')).toBe(true);
      }),
    );
  });
});

describe('sumUsage', () => {
  it('adds every count at any depth', () => {
    const usage = fc.record({ input_tokens: fc.nat(), details: fc.record({ cached_tokens: fc.nat() }) });
    fc.assert(
      fc.property(usage, usage, (a, b) => {
        expect(sumUsage(a, b)).toEqual({
          input_tokens: a.input_tokens + b.input_tokens,
          details: { cached_tokens: a.details.cached_tokens + b.details.cached_tokens },
        });
        expect(sumUsage(undefined, b)).toEqual(b);
      }),
    );
  });
});

describe('the body bytes', () => {
  it('appends the tool after the client bytes of tools, or adds tools at the end', () => {
    const raw = Buffer.from('{ "tools" : [ {"name":"a"} ] ,"messages":[1]}');
    expect(appendToArray(raw, JSON.parse(raw.toString()), 'tools', ['{"name":"b"}']).toString()).toBe(
      '{ "tools" : [ {"name":"a"},{"name":"b"}] ,"messages":[1]}',
    );
    const none = Buffer.from('{"messages":[1]}\n');
    expect(appendToArray(none, JSON.parse(none.toString()), 'tools', ['{"name":"b"}']).toString()).toBe(
      '{"messages":[1],"tools":[{"name":"b"}]}\n',
    );
    const empty = Buffer.from('{"tools":[],"messages":[1]}');
    expect(appendToArray(empty, JSON.parse(empty.toString()), 'tools', ['{"name":"b"}']).toString()).toBe(
      '{"tools":[{"name":"b"}],"messages":[1]}',
    );
  });

  it('appends a round after the last item of the conversation, every earlier byte kept', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue(), { minLength: 1 }),
        fc.array(fc.jsonValue(), { minLength: 1 }),
        (messages, added) => {
          const raw = Buffer.from(JSON.stringify({ model: 'm', messages, z: 1 }, null, 1));
          const parsed = JSON.parse(raw.toString());
          const out = appendTurn(raw, parsed, 'messages', added);
          expect(JSON.parse(out.toString()).messages).toEqual([
            ...parsed.messages,
            ...JSON.parse(JSON.stringify(added)),
          ]);
          const end = arrayItemSpans(raw, 'messages')?.at(-1)?.end ?? -1;
          expect(out.subarray(0, end).equals(raw.subarray(0, end))).toBe(true);
        },
      ),
    );
  });
});
