import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConversationEngine } from '../src/engine/conversation.js';
import { resolveEngineConfig } from '../src/engine/index.js';
import { MemoryStore } from '../src/store/backends/memory-store.js';
import type { ToolResult } from '../src/text/tool-result.js';
import { median, ms, ratio } from './measure.js';
import { benchProxyTo, post, upstream } from './proxy.bench.js';

/** The i-th call of a long session: reads of distinct files and distinct commands, in turn. */
function call(i: number): ToolResult {
  return {
    id: `toolu_${i}`,
    tool: i % 2 ? 'Bash' : 'Read',
    input: i % 2 ? { command: `grep -rn symbol${i} src/` } : { file_path: `/repo/src/module${i}/index.ts` },
    content: `output of call ${i}\n`.repeat(12),
    position: 2 * i + 2,
  };
}

/** A Messages body holding the first `n` calls of the session and their results. */
function sessionBody(n: number): string {
  const messages: unknown[] = [{ role: 'user', content: 'go' }];
  for (let i = 0; i < n; i++) {
    const c = call(i);
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: c.id, name: c.tool, input: c.input }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: c.id, content: c.content }],
    });
  }
  return JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 100, system: 'x', messages });
}

/**
 * A turn's cost against the length of its session, per result the session holds: the engine's
 * turn, and a request through the proxy (a turn reads every earlier result; the supersede stage
 * once compared each with every later one, and the window guard located and hashed every
 * message again, so a long session's turn grew faster than its length).
 */
export async function benchLongSession(): Promise<void> {
  console.log('\n## a turn in a long session: one new result in a session of 2,000 results vs 100');
  const turnIn = async (length: number) => {
    const engine = new ConversationEngine({
      config: resolveEngineConfig(),
      store: new MemoryStore(),
      session: `long${length}`,
    });
    const results = Array.from({ length: length - 1 }, (_, i) => call(i));
    await engine.turn({ results, messageCount: 2 * length });
    const times: number[] = [];
    for (let t = 0; t < 7; t++) {
      results.push(call(results.length));
      const start = performance.now();
      await engine.turn({ results, messageCount: 2 * results.length + 2 });
      times.push(performance.now() - start);
    }
    return median(times);
  };
  const short = await turnIn(100);
  const long = await turnIn(2000);
  console.log(
    `  engine turn: session of 100 results ${ms(short)}, of 2,000 ${ms(long)}; per result held ${ratio(long / 2000, short / 100)} (linear: about 1x)`,
  );

  const up = await upstream();
  const root = mkdtempSync(join(tmpdir(), 'spillway-bench-'));
  const proxy = await benchProxyTo(up.url, join(root, 'tool-results'));
  try {
    const added: Record<number, number> = {};
    for (const length of [100, 2000]) {
      const session = `long${length}`;
      await post(proxy.url, sessionBody(length - 1), session);
      // Round r is the session's next turn: one more call, sent direct and then through the
      // proxy. The bodies are made before timing starts; no collection between the two (a
      // forced GC before each would bill the proxy for refilling an emptied heap).
      const bodies = Array.from({ length: 16 }, (_, r) => sessionBody(length + r));
      const turn = (round: number) => bodies[round] as string;
      const runs = { direct: [] as number[], proxied: [] as number[] };
      for (let round = 0; round < bodies.length; round++) {
        let t = performance.now();
        await post(up.url, turn(round), `direct-${session}`);
        runs.direct.push(performance.now() - t);
        t = performance.now();
        await post(proxy.url, turn(round), session);
        runs.proxied.push(performance.now() - t);
      }
      const next = turn(15);
      added[length] = median(runs.proxied.map((p, i) => p - (runs.direct[i] as number)));
      console.log(
        `  request through the proxy, session of ${length} results (${(Buffer.byteLength(next) / 1024).toFixed(0)} KB): direct ${ms(median(runs.direct))}, added ${ms(added[length] as number)}`,
      );
    }
    console.log(
      `  added per result held: ${ratio((added[2000] as number) / 2000, (added[100] as number) / 100)} (linear: about 1x)`,
    );
  } finally {
    await proxy.close();
    up.close();
    rmSync(root, { recursive: true, force: true });
  }
}
