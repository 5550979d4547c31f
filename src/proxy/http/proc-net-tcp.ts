import { SocketAddress } from 'node:net';

/** One end of a TCP connection: an address in {@link canonicalAddress}'s form, and a port. */
export interface Endpoint {
  address: string;
  port: number;
}

/** One socket of Linux's `/proc/net/tcp` or `/proc/net/tcp6`: its two ends, state and owner. */
export interface SocketLine {
  local: Endpoint;
  remote: Endpoint;
  /** The kernel's TCP state number (1 established, 6 time-wait, 10 listen). */
  state: number;
  uid: number;
}

/** A time-wait line is the kernel's, not a process's: its uid is 0 whoever made the socket. */
export const TCP_TIME_WAIT = 6;

//   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  ...
const LINE =
  /^\s*\d+:\s+([0-9A-Fa-f]{8}|[0-9A-Fa-f]{32}):([0-9A-Fa-f]{4})\s+([0-9A-Fa-f]{8}|[0-9A-Fa-f]{32}):([0-9A-Fa-f]{4})\s+([0-9A-Fa-f]{2})\s+\S+\s+\S+\s+\S+\s+(\d+)\s/;

/**
 * An address as this module compares them: IPv4 dotted (an IPv4-mapped IPv6 address too, as
 * Node reports a dual-stack peer `::ffff:127.0.0.1` and the kernel may list either form), IPv6
 * in the short form Node's sockets report (libuv's, RFC 5952), without a zone.
 *
 * @example
 * canonicalAddress('::ffff:127.0.0.1'); // '127.0.0.1'
 * canonicalAddress('0:0:0:0:0:0:0:1'); // '::1'
 */
export function canonicalAddress(address: string): string {
  const bare = address.replace(/%.*$/, '');
  if (!bare.includes(':')) return bare;
  let short: string;
  try {
    short = new SocketAddress({ address: bare, family: 'ipv6' }).address;
  } catch {
    return bare.toLowerCase();
  }
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(short)?.[1] ?? short;
}

/** The kernel prints each 32-bit word of an address in the host's byte order. */
function addressFromHex(hex: string, littleEndian: boolean): string {
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const four = [0, 2, 4, 6].map((i) => Number.parseInt(hex.slice(word + i, word + i + 2), 16));
    bytes.push(...(littleEndian ? four.reverse() : four));
  }
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((bytes[i] as number) << 8) | (bytes[i + 1] as number)).toString(16));
  return canonicalAddress(groups.join(':'));
}

/**
 * One line of `/proc/net/tcp` or `/proc/net/tcp6`, or undefined for the header or anything
 * else. `littleEndian` is the host's byte order (`os.endianness() === 'LE'`).
 *
 * @example
 * parseSocketLine('  25: 0100007F:9A02 0100007F:90F1 01 00000000:00000000 00:00000000 00000000  1000        0 42177 2 0 20 0 0 10 -1', true);
 * // { local: { address: '127.0.0.1', port: 39426 }, remote: { address: '127.0.0.1', port: 37105 }, state: 1, uid: 1000 }
 */
export function parseSocketLine(line: string, littleEndian: boolean): SocketLine | undefined {
  const m = LINE.exec(line);
  if (!m) return undefined;
  const [, localHex, localPort, remoteHex, remotePort, state, uid] = m as unknown as string[];
  return {
    local: {
      address: addressFromHex(localHex as string, littleEndian),
      port: Number.parseInt(localPort as string, 16),
    },
    remote: {
      address: addressFromHex(remoteHex as string, littleEndian),
      port: Number.parseInt(remotePort as string, 16),
    },
    state: Number.parseInt(state as string, 16),
    uid: Number(uid),
  };
}

/**
 * True when `line` is the peer's own socket of a connection the proxy accepted: its local end is
 * the peer's address and port, its remote end the proxy's (the proxy's accepted socket is the
 * same pair the other way round, and is the proxy's own). Time-wait lines are not sockets of a
 * process.
 *
 * @example
 * isPeerSocket(parsed, { address: '127.0.0.1', port: 39426 }, { address: '127.0.0.1', port: 4747 });
 */
export function isPeerSocket(line: SocketLine, peer: Endpoint, server: Endpoint): boolean {
  return (
    line.state !== TCP_TIME_WAIT &&
    line.local.port === peer.port &&
    line.remote.port === server.port &&
    line.local.address === peer.address &&
    line.remote.address === server.address
  );
}
