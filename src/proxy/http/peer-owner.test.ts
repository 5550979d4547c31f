import { existsSync } from 'node:fs';
import { Agent, createServer, get as httpGet } from 'node:http';
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../../test-support/loopback.js';
import { OwnerGate, type PeerOwner, socketOwner } from './peer-owner.js';
import { canonicalAddress } from './proc-net-tcp.js';

const NO_PROC = existsSync('/proc/net/tcp')
  ? undefined
  : 'no /proc/net/tcp here (not Linux): the peer uid cannot be looked up';
const uid = process.getuid?.() ?? -1;

/** A connection to a server of this process, as both ends see it. */
async function loopbackPair(host: string): Promise<{ client: Socket; server: Socket; close(): void }> {
  const listener = createTcpServer();
  const accepted = new Promise<Socket>((done) => listener.once('connection', done));
  await new Promise<void>((done) => listener.listen(0, host, done));
  const client = connect((listener.address() as AddressInfo).port, host);
  const server = await accepted;
  return {
    client,
    server,
    close: () => {
      client.destroy();
      server.destroy();
      listener.close();
    },
  };
}

describe('the owner of a connection', () => {
  it.skipIf(NO_PROC)(
    `is found in /proc/net/tcp and tcp6, for IPv4 and IPv6 loopback${NO_PROC ? ` (skipped: ${NO_PROC})` : ''}`,
    async () => {
      for (const host of ['127.0.0.1', '::1']) {
        const pair = await loopbackPair(host);
        try {
          const peer = {
            address: canonicalAddress(pair.server.remoteAddress as string),
            port: pair.server.remotePort as number,
          };
          const server = {
            address: canonicalAddress(pair.server.localAddress as string),
            port: pair.server.localPort as number,
          };
          expect(await socketOwner(peer, server), host).toEqual({ uid });
          expect(await socketOwner({ ...peer, port: 1 }, server), host).toBe('unknown');
        } finally {
          pair.close();
        }
      }
    },
  );

  it('is unsupported where the tables cannot be read', async () => {
    const end = { address: '127.0.0.1', port: 4747 };
    expect(await socketOwner(end, end, ['/nonexistent/tcp', '/nonexistent/tcp6'])).toBe('unsupported');
  });

  it('is looked up once per connection, however many requests it carries', async () => {
    const lookups: string[] = [];
    let answer: PeerOwner = { uid };
    const gate = new OwnerGate(uid, async (peer) => {
      lookups.push(`${peer.address}:${peer.port}`);
      return answer;
    });
    const server = createServer(async (req, res) => {
      const why = await gate.stranger(req);
      res.writeHead(why ? 403 : 200, { 'content-type': 'text/plain' });
      res.end(why ?? 'ok');
    });
    const { url, close } = await listenOnLoopback(server);
    const get = (agent: Agent) =>
      new Promise<number>((done, fail) => {
        httpGet(url, { agent }, (res) => {
          res.resume();
          done(res.statusCode as number);
        }).on('error', fail);
      });
    const first = new Agent({ keepAlive: true, maxSockets: 1 });
    const second = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 3; i++) expect(await get(first)).toBe(200);
      expect(lookups).toHaveLength(1);
      // Another connection is asked about again, and its answer is its own.
      answer = { uid: uid + 1 };
      expect(await get(second)).toBe(403);
      expect(await get(first)).toBe(200);
      expect(lookups).toHaveLength(2);
    } finally {
      first.destroy();
      second.destroy();
      await close();
    }
  });

  it("refuses another uid's connection and one it cannot place; lets everything pass where it cannot look", async () => {
    const req = (socket: object) => ({ socket }) as unknown as Parameters<OwnerGate['stranger']>[0];
    const socket = {
      remoteAddress: '127.0.0.1',
      remotePort: 5000,
      localAddress: '127.0.0.1',
      localPort: 4747,
    };
    const gate = (owner: PeerOwner) => new OwnerGate(1000, async () => owner);
    expect(await gate({ uid: 1000 }).stranger(req(socket))).toBeUndefined();
    expect(await gate({ uid: 1001 }).stranger(req(socket))).toMatch(
      /^this connection is from another local user \(uid 1001\); spillway answers only the user who started it/,
    );
    expect(await gate('unknown').stranger(req(socket))).toMatch(/could not tell which local user/);
    expect(await gate('unsupported').stranger(req(socket))).toBeUndefined();
    // A socket already closed has no address to look up: refused, not let through.
    expect(await gate({ uid: 1000 }).stranger(req({}))).toMatch(/could not tell/);
  });
});
