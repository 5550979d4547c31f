import { SocketAddress } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalAddress, isPeerSocket, parseSocketLine } from './proc-net-tcp.js';

// Lines read from this machine's /proc/net/tcp and tcp6 (x86_64, little-endian): a client of
// uid 1001 connected to a dual-stack server of root's, and both ends of IPv4 and IPv6 loopback
// connections of root's.
const IPV4_CLIENT_UID_1001 =
  '   1: 0100007F:C888 0100007F:8F3B 01 00000000:00000000 00:00000000 00000000  1001        0 81137 2 000000004e68cbaf 20 0 0 10 -1                     ';
const MAPPED_SERVER_SIDE =
  '   1: 0000000000000000FFFF00000100007F:8F3B 0000000000000000FFFF00000100007F:C888 01 00000000:00000000 00:00000000 00000000     0        0 81138 1 00000000306a9bb8 20 0 0 10 -1';
const IPV4_HEADER =
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode                                                     ';
const IPV4_CLIENT =
  '  25: 0100007F:9A02 0100007F:90F1 01 00000000:00000000 00:00000000 00000000     0        0 42177 2 000000007caf7397 20 0 0 10 -1                     ';
const IPV4_SERVER_SIDE =
  '  48: 0100007F:90F1 0100007F:9A02 01 00000000:00000000 00:00000000 00000000     0        0 42178 1 00000000ef3b9bba 20 0 0 10 -1                     ';
const IPV6_CLIENT =
  '   2: 00000000000000000000000001000000:CAD2 00000000000000000000000001000000:96A5 01 00000000:00000000 00:00000000 00000000     0        0 42181 2 00000000306a9bb8 20 0 0 10 -1';
const IPV6_LISTEN =
  '   0: 00000000000000000000000001000000:96A5 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 42180 1 0000000000000000 100 0 0 10 0';

describe('/proc/net/tcp lines', () => {
  it('reads IPv4 loopback: both ends, the state and the owner', () => {
    expect(parseSocketLine(IPV4_CLIENT_UID_1001, true)).toEqual({
      local: { address: '127.0.0.1', port: 0xc888 },
      remote: { address: '127.0.0.1', port: 0x8f3b },
      state: 1,
      uid: 1001,
    });
    expect(parseSocketLine(IPV4_CLIENT, true)?.local).toEqual({ address: '127.0.0.1', port: 39426 });
  });

  it('reads IPv6 loopback, and an IPv4-mapped address as the IPv4 one', () => {
    expect(parseSocketLine(IPV6_CLIENT, true)).toEqual({
      local: { address: '::1', port: 51922 },
      remote: { address: '::1', port: 38565 },
      state: 1,
      uid: 0,
    });
    expect(parseSocketLine(IPV6_LISTEN, true)).toMatchObject({ state: 10, uid: 1000 });
    expect(parseSocketLine(MAPPED_SERVER_SIDE, true)?.remote).toEqual({ address: '127.0.0.1', port: 0xc888 });
  });

  it('reads the words in the byte order it is told (a big-endian host prints 127.0.0.1 as 7F000001)', () => {
    const bigEndian = (line: string) =>
      line.replace('0100007F:9A02 0100007F', '7F000001:9A02 7F000001').replaceAll('01000000:', '00000001:');
    expect(parseSocketLine(bigEndian(IPV4_CLIENT), false)?.local.address).toBe('127.0.0.1');
    expect(parseSocketLine(bigEndian(IPV6_CLIENT), false)?.remote.address).toBe('::1');
    expect(parseSocketLine(IPV4_CLIENT, false)?.local.address).toBe('1.0.0.127');
  });

  it('skips the header and lines not in the format', () => {
    for (const line of [IPV4_HEADER, '', 'garbage', '  1: 0100007F:9A0 0100007F:90F1 01 0:0 0:0 0 5 0 1'])
      expect(parseSocketLine(line, true), line).toBeUndefined();
  });

  it("finds the peer's own socket, not the proxy's end of the same connection", () => {
    const peer = { address: canonicalAddress('::ffff:127.0.0.1'), port: 0xc888 };
    const server = { address: canonicalAddress('::ffff:127.0.0.1'), port: 0x8f3b };
    const client = parseSocketLine(IPV4_CLIENT_UID_1001, true);
    const proxySide = parseSocketLine(MAPPED_SERVER_SIDE, true);
    expect(client && isPeerSocket(client, peer, server)).toBe(true);
    expect(proxySide && isPeerSocket(proxySide, peer, server)).toBe(false);
    const v4 = parseSocketLine(IPV4_SERVER_SIDE, true);
    expect(
      v4 && isPeerSocket(v4, { address: '127.0.0.1', port: 39426 }, { address: '127.0.0.1', port: 37105 }),
    ).toBe(false);
    // A time-wait line is the kernel's (uid 0 whoever made it): it names no owner.
    const timeWait = parseSocketLine(IPV4_CLIENT_UID_1001.replace(' 01 ', ' 06 '), true);
    expect(timeWait && isPeerSocket(timeWait, peer, server)).toBe(false);
  });

  it("puts addresses in the form Node's sockets report them", () => {
    expect(canonicalAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(canonicalAddress('::FFFF:7f00:1')).toBe('127.0.0.1');
    expect(canonicalAddress('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(canonicalAddress('fe80::1%lo')).toBe('fe80::1');
    expect(canonicalAddress('127.0.0.1')).toBe('127.0.0.1');
  });

  // The kernel's form of any address: each 32-bit word of it in little-endian hex.
  const kernelHex = (bytes: number[]) => {
    let hex = '';
    for (let w = 0; w < bytes.length; w += 4)
      hex += bytes
        .slice(w, w + 4)
        .reverse()
        .map((b) => b.toString(16).padStart(2, '0').toUpperCase())
        .join('');
    return hex;
  };
  const port = (p: number) => p.toString(16).toUpperCase().padStart(4, '0');

  it('matches any address and port Node reports against the line the kernel writes for it', () => {
    const address = fc.oneof(
      fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }),
      fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 16, maxLength: 16 }),
    );
    fc.assert(
      fc.property(
        address,
        fc.integer({ min: 1, max: 65535 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (bytes, p, uid) => {
          // How Node prints the address (the peer's remoteAddress).
          const node =
            bytes.length === 4
              ? bytes.join('.')
              : new SocketAddress({
                  family: 'ipv6',
                  address: Array.from({ length: 8 }, (_, i) =>
                    (((bytes[2 * i] as number) << 8) | (bytes[2 * i + 1] as number)).toString(16),
                  ).join(':'),
                }).address;
          const hex = kernelHex(bytes);
          const line = parseSocketLine(
            `  7: ${hex}:${port(p)} ${hex}:${port(4747)} 01 00000000:00000000 00:00000000 00000000 ${uid} 0 1 1 0 20 0 0 10 -1`,
            true,
          );
          const server = { address: canonicalAddress(node), port: 4747 };
          expect(line?.uid).toBe(uid);
          expect(line && isPeerSocket(line, { address: canonicalAddress(node), port: p }, server)).toBe(true);
          expect(
            line && isPeerSocket(line, { address: canonicalAddress(node), port: (p % 65535) + 1 }, server),
          ).toBe(false);
        },
      ),
    );
  });
});
