import { createServer } from 'node:http';
import { chatConversation } from '../src/test-support/gateway-bodies.js';
import { startGatewayProxy } from '../src/test-support/gateway-proxy.js';
import { listenOnLoopback } from '../src/test-support/loopback.js';
import { PORTKEY, startPortkey } from '../src/test-support/portkey.js';
import { startUpstream } from '../src/test-support/upstream.js';
import { ms, percentiles } from './measure.js';

type Quantiles = ReturnType<typeof percentiles>;
const ARMS = ['none', 'stub', 'spillway'] as const;
type Arm = (typeof ARMS)[number];

/**
 * What spillway's webhook adds to a request through the real Portkey gateway: the same chat
 * completion sent through Portkey without a hook, with a stub webhook that changes nothing (the
 * hop's own cost) and with spillway's (`input_mutators` at /portkey/hook), interleaved A B C
 * A B C, to a local scripted model. Two bodies: a short conversation with nothing to collapse,
 * and one whose two 150 KB logs are collapsed (frozen and replayed after the first round, as a
 * conversation's later turns are).
 */
export async function benchPortkeyHop(): Promise<void> {
  console.log('\n## Portkey hop: a chat completion through Portkey without and with a webhook (interleaved)');
  if ('missing' in PORTKEY) {
    console.log(`skipped: ${PORTKEY.missing}`);
    return;
  }
  const upstream = await startUpstream();
  const spillway = await startGatewayProxy();
  const stub = await listenOnLoopback(
    createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"verdict":true}'));
    }),
  );
  const portkey = await startPortkey();
  const hooks: Record<Arm, string | undefined> = {
    none: undefined,
    stub: `${stub.url}/hook`,
    spillway: `${spillway.url}/portkey/hook`,
  };
  const config = (arm: Arm) =>
    JSON.stringify({
      provider: 'openai',
      api_key: 'sk-bench',
      custom_host: `${upstream.url}/v1`,
      ...(hooks[arm] ? { input_mutators: [{ 'default.webhook': { webhookURL: hooks[arm] } }] } : {}),
    });
  const send = async (arm: Arm, body: string): Promise<number> => {
    const t = performance.now();
    const res = await fetch(`${portkey.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-portkey-config': config(arm) },
      body,
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`Portkey answered ${res.status}`);
    return performance.now() - t;
  };
  try {
    const short = [{ role: 'user', content: 'Say hello.' }];
    for (const [label, messages, rounds] of [
      ['nothing to collapse (1 message)', short, 300],
      ['two 150 KB logs collapsed (replayed)', chatConversation('bench', 2), 60],
    ] as const) {
      const body = JSON.stringify({ model: 'gpt-4o', messages });
      for (const arm of ARMS) await send(arm, body);
      upstream.seen.length = 0;
      const samples: Record<Arm, number[]> = { none: [], stub: [], spillway: [] };
      for (let i = 0; i < rounds; i++) for (const arm of ARMS) samples[arm].push(await send(arm, body));
      const [a, s, b] = ARMS.map((arm) => percentiles(samples[arm])) as [Quantiles, Quantiles, Quantiles];
      console.log(
        `${label}, ${rounds} interleaved rounds: without a hook p50 ${ms(a.p50)} p90 ${ms(a.p90)}; with spillway's p50 ${ms(b.p50)} p90 ${ms(b.p90)}, added p50 ${ms(b.p50 - a.p50)} p90 ${ms(b.p90 - a.p90)}; a stub webhook that changes nothing adds p50 ${ms(s.p50 - a.p50)} p90 ${ms(s.p90 - a.p90)}`,
      );
    }
  } finally {
    await portkey.stop();
    await stub.close();
    await spillway.close();
    await upstream.close();
  }
}
