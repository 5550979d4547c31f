import { describe, expect, it } from 'vitest';
import { RecallOffers } from '../recall-offers.js';
import { planRecall } from './offer.js';

const body = (content: string, tools: object[] = [{ name: 'bash' }]) =>
  Buffer.from(
    JSON.stringify({
      model: 'claude-sonnet-4-5',
      tools,
      messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content }] }],
    }),
  );
const MARKED = 'head\n... (lines 2-99 of 100 omitted; full output: spillway_expand <<sw:Ab3>>) ...\ntail';

describe('planRecall: which requests get the tool', () => {
  it('a conversation with a marker gets it, and keeps it when a later body shows none', () => {
    const offers = new RecallOffers();
    const first = planRecall(offers, 'anthropic', '/v1/messages', 's1', body(MARKED));
    expect(first?.allowed).toEqual(new Set(['Ab3']));
    expect(first?.body.toString()).toMatch(/"tools":\[\{"name":"bash"\},\{"name":"spillway_expand",/);
    const later = planRecall(offers, 'anthropic', '/v1/messages', 's1', body('no marker here'));
    expect(later?.allowed.size).toBe(0);
    // The same bytes of the tool both times: the cached prefix does not move.
    const tool = (b: Buffer | undefined) =>
      /\{"name":"spillway_expand".*?\}\}\}/.exec(b?.toString() ?? '')?.[0];
    expect(tool(later?.body)).toBe(tool(first?.body));
    expect(planRecall(offers, 'anthropic', '/v1/messages', 's2', body('no marker here'))).toBeUndefined();
  });

  it("leaves alone a client with its own spillway_expand, and Gemini's JSON-array stream", () => {
    const offers = new RecallOffers();
    const mcp = body(MARKED, [{ name: 'mcp__spillway__spillway_expand' }]);
    expect(planRecall(offers, 'anthropic', '/v1/messages', 's3', mcp)).toBeUndefined();
    expect(offers.has('s3')).toBe(false);
    const gemini = Buffer.from(
      JSON.stringify({
        contents: [
          { role: 'user', parts: [{ functionResponse: { name: 'bash', response: { output: MARKED } } }] },
        ],
      }),
    );
    const path = '/v1beta/models/gemini-2.5-pro:streamGenerateContent';
    expect(planRecall(offers, 'gemini', path, 's4', gemini)).toBeUndefined();
    expect(planRecall(offers, 'gemini', `${path}?alt=sse`, 's4', gemini)?.streaming).toBe(true);
  });

  it('forgets the least recently offered conversation past its bound', () => {
    const offers = new RecallOffers(2);
    for (const s of ['a', 'b', 'c']) offers.remember(s);
    expect([offers.has('a'), offers.has('b'), offers.has('c')]).toEqual([false, true, true]);
  });
});
