import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningProxy } from '../proxy/index.js';
import { chatConversation, postJson } from '../test-support/gateway-bodies.js';
import { startGatewayProxy } from '../test-support/gateway-proxy.js';

/** An address of this machine that is not loopback, for a client that is "not on this machine". */
const outside = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe.skipIf(!outside)(
  'who may call the gateways routes (skipped: this machine has no non-loopback IPv4 address)',
  () => {
    let proxy: RunningProxy;
    let port: number;
    const body = { messages: chatConversation('auth', 1), model: 'gpt-4o' };

    beforeAll(async () => {
      proxy = await startGatewayProxy({
        host: '0.0.0.0',
        token: 'proxy-token',
        recallToken: { token: 'recall-token' },
      });
      port = Number(new URL(proxy.url).port);
    });
    afterAll(() => proxy.close());

    it('asks a client on another address for the recall token, as Bearer or x-headroom-proxy-token', async () => {
      const url = `http://${outside}:${port}/v1/compress`;
      expect((await postJson(url, body)).status).toBe(401);
      expect((await postJson(url, body, { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await postJson(url, body, { authorization: 'Bearer recall-token' })).status).toBe(200);
      expect((await postJson(url, body, { 'x-headroom-proxy-token': 'recall-token' })).status).toBe(200);
      // Health stays open: load balancers ask it.
      expect((await fetch(`http://${outside}:${port}/health`)).status).toBe(200);
    });

    it('asks a loopback client only for the token the proxy was started with', async () => {
      const url = `http://127.0.0.1:${port}/v1/compress`;
      expect((await postJson(url, body)).status).toBe(401);
      expect((await postJson(url, body, { authorization: 'Bearer proxy-token' })).status).toBe(200);
    });
  },
);
