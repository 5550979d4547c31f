import { createReadStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { endianness } from 'node:os';
import { createInterface } from 'node:readline';
import { canonicalAddress, type Endpoint, isPeerSocket, parseSocketLine } from './proc-net-tcp.js';

/**
 * Who holds the other end of a connection: a uid, or `unsupported` where the kernel's socket
 * tables cannot be read (not Linux), or `unknown` where they can and no socket matched.
 */
export type PeerOwner = { uid: number } | 'unsupported' | 'unknown';

const TABLES = { ipv4: '/proc/net/tcp', ipv6: '/proc/net/tcp6' } as const;
const LITTLE_ENDIAN = endianness() === 'LE';

/** The uid of the matching line of one table; undefined when none matches, null when it cannot be read. */
async function ownerIn(path: string, peer: Endpoint, server: Endpoint): Promise<number | undefined | null> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const opened = await new Promise<boolean>((done) => {
    stream.once('open', () => done(true));
    stream.once('error', () => done(false));
  });
  if (!opened) return null;
  // Line by line, stopping at the match: memory stays small however many sockets the host has.
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  // Only a line naming the peer's port is parsed (a busy host lists thousands of sockets).
  const port = `:${peer.port.toString(16).toUpperCase().padStart(4, '0')} `;
  try {
    for await (const text of lines) {
      if (!text.includes(port)) continue;
      const line = parseSocketLine(text, LITTLE_ENDIAN);
      if (line && isPeerSocket(line, peer, server)) return line.uid;
    }
    return undefined;
  } catch {
    // The table opened and then failed: this system has the tables, so the peer is unknown
    // (refused), never "unsupported" (let through).
    return undefined;
  } finally {
    lines.close();
    stream.destroy();
  }
}

/**
 * The owner of the peer's socket of a loopback connection, from Linux's `/proc/net/tcp` and
 * `/proc/net/tcp6` (the table of the peer's family first: a dual-stack peer may be in either).
 *
 * @example
 * await socketOwner({ address: '127.0.0.1', port: 39426 }, { address: '127.0.0.1', port: 4747 }); // { uid: 1000 }
 */
export async function socketOwner(
  peer: Endpoint,
  server: Endpoint,
  tables: readonly string[] = peer.address.includes(':')
    ? [TABLES.ipv6, TABLES.ipv4]
    : [TABLES.ipv4, TABLES.ipv6],
): Promise<PeerOwner> {
  let readable = false;
  for (const table of tables) {
    const uid = await ownerIn(table, peer, server);
    if (uid === null) continue;
    readable = true;
    if (uid !== undefined) return { uid };
  }
  return readable ? 'unknown' : 'unsupported';
}

function endpoints(socket: Socket): { peer: Endpoint; server: Endpoint } | undefined {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!remoteAddress || !remotePort || !localAddress || !localPort) return undefined;
  return {
    peer: { address: canonicalAddress(remoteAddress), port: remotePort },
    server: { address: canonicalAddress(localAddress), port: localPort },
  };
}

/**
 * Tells the proxy's own user's connections from another local user's: the peer socket's owner
 * is looked up once per connection (a keep-alive connection's later requests cost nothing), on
 * Linux. Elsewhere the tables do not exist and every connection passes: there only the tokens
 * keep other users out.
 *
 * @example
 * const gate = new OwnerGate(process.getuid());
 * const why = await gate.stranger(req); // undefined for the user's own connection
 */
export class OwnerGate {
  readonly #owners = new WeakMap<Socket, Promise<PeerOwner>>();

  constructor(
    readonly uid: number,
    private readonly lookup: typeof socketOwner = socketOwner,
  ) {}

  /** Why the request's connection is not this user's, or undefined when it is (or cannot be told). */
  async stranger(req: IncomingMessage): Promise<string | undefined> {
    const socket = req.socket;
    let owner = this.#owners.get(socket);
    if (!owner) {
      const ends = endpoints(socket);
      owner = ends ? this.lookup(ends.peer, ends.server) : Promise.resolve<PeerOwner>('unknown');
      this.#owners.set(socket, owner);
    }
    const found = await owner;
    if (found === 'unsupported') return undefined;
    if (found === 'unknown')
      return 'spillway could not tell which local user this connection is from, and answers only the user who started it';
    if (found.uid === this.uid) return undefined;
    return `this connection is from another local user (uid ${found.uid}); spillway answers only the user who started it. Start a proxy of your own (spillway proxy --port 0)`;
  }
}
