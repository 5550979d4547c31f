import { describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../../engine/config.js';
import { MemoryStore } from '../../store/backends/memory-store.js';
import { heuristicTokenizer } from '../../text/tokenizers/heuristic.js';
import { getTokenizer } from '../../text/tokenizers/index.js';
import { rewriteRequest } from './rewrite.js';
import { SessionTable } from './sessions.js';

const big = (tag: string) =>
  Array.from({ length: 3000 }, (_, i) => `${tag} ${i}: compiled module ${i}`).join('\n');

function body(results: string[]) {
  const messages: unknown[] = [{ role: 'user', content: 'go' }];
  results.forEach((content, i) => {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${i}-${content.length}`, name: 'Bash', input: {} }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `t${i}-${content.length}`, content }],
    });
  });
  return Buffer.from(JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 5, messages }));
}

const sent = (out: { body: Buffer }) =>
  (JSON.parse(out.body.toString()).messages as { content: { content: string }[] }[])
    .filter((_, i) => i % 2 === 0 && i > 0)
    .map((m) => m.content[0]?.content as string);

describe('rewriteRequest', () => {
  const make = () => {
    const store = new MemoryStore();
    return {
      sessions: new SessionTable({
        config: resolveEngineConfig(),
        store,
        statsTokenizer: heuristicTokenizer,
      }),
    };
  };

  it('changes nothing but the shortened text: big numbers, 1e400, spacing and invalid UTF-8 go up as sent', async () => {
    const deps = make();
    const log = JSON.stringify(big('b'));
    const raw = Buffer.concat([
      Buffer.from(
        `{"model": "claude-sonnet-4-5", "max_tokens": 5,\n "messages": [ {"role":"user","content":"caf`,
      ),
      Buffer.from([0xc3, 0x28]), // not UTF-8: JSON.parse sees U+FFFD
      Buffer.from(
        `"}, {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"n": 9007199254740993, "x": 1e400}}]},\n  {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":${log}, "cache_control": {"type":"ephemeral"}}]} ]}`,
      ),
    ]);
    const out = await rewriteRequest('anthropic', raw, { spillway: 'exact' }, deps, { updateBoundary: true });
    expect(out.changed).toBe(true);
    const at = raw.indexOf(log);
    const shortened = JSON.parse(out.body.toString('utf8')).messages[2].content[0].content as string;
    expect(shortened.length).toBeLessThan(log.length / 3);
    const expected = Buffer.concat([
      raw.subarray(0, at),
      Buffer.from(JSON.stringify(shortened)),
      raw.subarray(at + log.length),
    ]);
    expect(out.body.equals(expected)).toBe(true);
  });

  it('leaves an unseen result in the cached prefix alone, and collapses it once it arrives in the tail', async () => {
    const deps = make();
    const first = await rewriteRequest('anthropic', body(['small']), { spillway: 'sess' }, deps, {
      updateBoundary: true,
    });
    expect(first.changed).toBe(false);
    const second = await rewriteRequest('anthropic', body(['small', big('a')]), { spillway: 'sess' }, deps, {
      updateBoundary: true,
    });
    expect(getTokenizer('o200k').count(sent(second)[1] as string)).toBeLessThanOrEqual(2000);
  });

  it('starts the boundary again when a conversation gets shorter (compaction, rewind), keeping frozen decisions', async () => {
    const deps = make();
    const long = ['x1', 'x2', 'x3', big('early')];
    const turn1 = await rewriteRequest('anthropic', body(long), { spillway: 'compacting' }, deps, {
      updateBoundary: true,
    });
    const collapsedEarly = sent(turn1)[3] as string;
    expect(collapsedEarly).not.toBe(big('early'));
    // After compaction: fewer messages, and a new large result at a position below the old boundary.
    const turn2 = await rewriteRequest(
      'anthropic',
      body(['summary', big('late')]),
      { spillway: 'compacting' },
      deps,
      {
        updateBoundary: true,
      },
    );
    expect(getTokenizer('o200k').count(sent(turn2)[1] as string)).toBeLessThanOrEqual(2000);
    // An earlier result that comes back is replayed exactly as frozen.
    const turn3 = await rewriteRequest(
      'anthropic',
      body(['summary', big('late'), 'x', big('early')]),
      { spillway: 'compacting' },
      deps,
      { updateBoundary: true },
    );
    expect(sent(turn3)[1]).toBe(sent(turn2)[1]);
    expect(sent(turn3)[3]).toBe(collapsedEarly);
  });

  it("keys a conversation by the client's session header, whatever moves in its messages", async () => {
    const deps = make();
    const a1 = await rewriteRequest('anthropic', body(['one']), { client: 'cc-session-a' }, deps, {
      updateBoundary: true,
    });
    const a2 = await rewriteRequest('anthropic', body(['other', 'two']), { client: 'cc-session-a' }, deps, {
      updateBoundary: true,
    });
    const b1 = await rewriteRequest('anthropic', body(['one']), { client: 'cc-session-b' }, deps, {
      updateBoundary: true,
    });
    expect(a2.session).toBe(a1.session);
    expect(b1.session).not.toBe(a1.session);
  });

  it("keeps the lines that name what the user asked about, though the call's arguments do not name it", async () => {
    const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike'.split(' ');
    const job = (i: number) => `${words[i % 13]}_${words[Math.floor(i / 13) % 13]}_${Math.floor(i / 169)}`;
    const lines = Array.from(
      { length: 3000 },
      (_, i) => `debug: worker ${i % 17} polled job ${job(i)} in ${i % 40} ms`,
    );
    // Like every other line in shape, its job named once like every job (rarity does not pick
    // it out): only its name sets it apart.
    lines[1400] = 'debug: worker 6 polled job charge_refund in 0 ms';
    const log = lines.join('\n');
    const ask = (question: string) =>
      Buffer.from(
        JSON.stringify({
          model: 'claude-sonnet-4-5',
          max_tokens: 5,
          messages: [
            { role: 'user', content: question },
            {
              role: 'assistant',
              content: [
                { type: 'text', text: 'Reading the service log.' },
                { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'cat /var/log/shop.log' } },
              ],
            },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: log }] },
          ],
        }),
      );
    const shortened = async (question: string) => {
      const out = await rewriteRequest('anthropic', ask(question), { spillway: 'balanced' }, make(), {
        updateBoundary: true,
      });
      return JSON.parse(out.body.toString()).messages[2].content[0].content as string;
    };
    expect(await shortened('Why does charge_refund pay twice?')).toContain(lines[1400]);
    expect(await shortened('Why are refunds paid twice?')).not.toContain(lines[1400]);
  });
});
