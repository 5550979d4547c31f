import { afterAll, describe, expect, it } from 'vitest';
import { buildConversation, recallingModel, recallProxy } from '../../test-support/recall-fixture.js';
import type { ModelStep, ModelTurn } from '../../test-support/scripted-model.js';
import { arrayItemSpans, markerIds } from '../../text/index.js';
import { MAX_RECALL_ROUNDS } from './turn.js';

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** A scripted model, a proxy in front of it, and a way to post to it. */
async function setUp(script: (turn: ModelTurn) => ModelStep, options: { recallTool?: boolean } = {}) {
  const { model, proxy, close } = await recallProxy(script, options);
  closers.push(close);
  const post = async (path: string, body: unknown, session: string) => {
    const res = await fetch(`${proxy.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-spillway-session': session },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };
  return { model, proxy, post };
}

/** The marker id a request's tool result carries. */
const idIn = (turn: ModelTurn) => markerIds(turn.lastOutput?.text ?? '')[0] ?? 'none';

describe('recall through the proxy: its rules', () => {
  it('a model that recalls forever is answered for 8 rounds, told the last, and its next call is cut', async () => {
    let n = 0;
    const { model, post } = await setUp((turn) => ({
      kind: 'call',
      callId: `recall_${++n}`,
      name: 'spillway_expand',
      input: { id: turn.lastOutput?.callId.startsWith('recall_') ? 'Ab3' : idIn(turn), lines: '1-2' },
    }));
    const { path, body } = buildConversation('anthropic', false);
    const { status, text } = await post(path, body, 'forever');
    expect(status).toBe(200);
    expect(model.seen).toHaveLength(MAX_RECALL_ROUNDS + 1);
    const last = model.seen.at(-1)?.body.toString() ?? '';
    expect(last).toContain(`last spillway_expand answer for this turn (${MAX_RECALL_ROUNDS} rounds)`);
    const answer = JSON.parse(text);
    expect(answer.content).toEqual([]);
    expect(answer.stop_reason).toBe('end_turn');
    expect(text).not.toContain('spillway_expand');
  });

  it('an id no marker of the conversation names is not read: the model is told so', async () => {
    const { model, post } = await setUp((turn) =>
      turn.lastOutput?.callId === 'recall_1'
        ? { kind: 'answer', text: `told: ${turn.lastOutput.text}` }
        : { kind: 'call', callId: 'recall_1', name: 'spillway_expand', input: { id: '../../etc/passwd' } },
    );
    const { path, body } = buildConversation('openai-chat', true);
    const { text } = await post(path, body, 'bad-id');
    expect(model.seen).toHaveLength(2);
    expect(text).toContain('no marker in this conversation names the id');
    expect(text).not.toContain('root:');
  });

  it("a client with spillway's MCP tool is left alone; --no-recall-tool offers nothing", async () => {
    const { model, post } = await setUp(recallingModel);
    const { path, body } = buildConversation('anthropic', false);
    const tools = [...(body.tools as object[]), { name: 'mcp__spillway__spillway_expand', input_schema: {} }];
    await post(path, { ...body, tools }, 'has-tool');
    expect((model.seen[0]?.json as { tools?: unknown[] } | undefined)?.tools).toEqual(tools);
    const off = await setUp(recallingModel, { recallTool: false });
    const { text } = await off.post(path, body, 'off');
    expect(off.model.seen).toHaveLength(1);
    expect(off.model.seen[0]?.body.toString()).not.toContain('spillway_expand"');
    expect(text).toContain('the log was not shortened');
  });

  for (const api of ['anthropic', 'openai-chat', 'openai-responses', 'gemini'] as const)
    it(`${api}: a conversation's next request keeps the bytes of the last one's prefix, the tool in it`, async () => {
      const { model, post } = await setUp(recallingModel);
      const first = buildConversation(api, false);
      await post(first.path, first.body, `prefix-${api}`);
      const key = api === 'openai-responses' ? 'input' : api === 'gemini' ? 'contents' : 'messages';
      const reply =
        api === 'anthropic' || api === 'openai-chat'
          ? [
              { role: 'assistant', content: 'It fails to link.' },
              { role: 'user', content: 'Fix it.' },
            ]
          : api === 'gemini'
            ? [
                { role: 'model', parts: [{ text: 'It fails to link.' }] },
                { role: 'user', parts: [{ text: 'Fix it.' }] },
              ]
            : [
                { role: 'assistant', content: 'It fails to link.' },
                { role: 'user', content: 'Fix it.' },
              ];
      const next = { ...first.body, [key]: [...(first.body[key] as unknown[]), ...reply] };
      const rounds = model.seen.length;
      await post(first.path, next, `prefix-${api}`);
      const a = model.seen[0]?.body as Buffer;
      const b = model.seen[rounds]?.body as Buffer;
      const end = arrayItemSpans(a, key)?.at(-1)?.end ?? 0;
      expect(end).toBeGreaterThan(0);
      expect(b.subarray(0, end).equals(a.subarray(0, end))).toBe(true);
      // The tool is in that prefix (tools come before the conversation): the same bytes both times.
      expect(a.subarray(0, end).toString()).toContain('"spillway_expand"');
    });
});
