import { STASH_DIR, type StoreKey } from '../ids.js';

/**
 * Where the cluster store keeps things, prefix p. Every key carries a hash tag (`{...}`), so
 * each script's keys are on one slot:
 *   {p:s:DIR}:b:NAME  a session's body (PX = keep age); {p:s:DIR}:n  ZSET name -> last write
 *   {p:x:ID}:b        a stash entry's body (PX = keep age): the stash spreads over every shard
 *   {p}:total, {p}:use (HASH dir -> bytes), {p}:dirs (ZSET dir -> last write), {p}:stash (ZSET
 *   id -> write), {p}:sz (HASH id -> bytes): the ledger, on one slot, where quotas are decided.
 *
 * @example
 * const keys = clusterKeys('spillway');
 * keys.body({ dir: 'sess', name: 'c1' }); // '{spillway:s:sess}:b:c1'
 */
export function clusterKeys(prefix: string) {
  const ledger = (part: string) => `{${prefix}}:${part}`;
  return {
    body: (key: StoreKey) =>
      key.dir === STASH_DIR ? `{${prefix}:x:${key.name}}:b` : `{${prefix}:s:${key.dir}}:b:${key.name}`,
    /** The ZSET of a session's names; the stash's names are in the ledger. */
    names: (dir: string) => (dir === STASH_DIR ? ledger('stash') : `{${prefix}:s:${dir}}:n`),
    ledger: ['total', 'use', 'dirs', 'stash', 'sz'].map(ledger),
    use: ledger('use'),
    stashSizes: ledger('sz'),
    dirs: ledger('dirs'),
  };
}

export type ClusterKeys = ReturnType<typeof clusterKeys>;

// CRC16-CCITT (XMODEM), as Redis Cluster hashes keys to its 16,384 slots.
const CRC_TABLE = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let b = 0; b < 8; b++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
    t[i] = c;
  }
  return t;
})();

/**
 * The cluster slot of a key: of its hash tag (the first `{...}` with something inside) when it
 * has one, else of the whole key.
 *
 * @example
 * keySlot('{user1000}.following') === keySlot('{user1000}.followers'); // true
 * keySlot('foo'); // 12182
 */
export function keySlot(key: string): number {
  const bytes = Buffer.from(key);
  let from = 0;
  let to = bytes.length;
  const open = bytes.indexOf(0x7b);
  if (open >= 0) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) {
      from = open + 1;
      to = close;
    }
  }
  let crc = 0;
  for (let i = from; i < to; i++)
    crc = ((crc << 8) & 0xffff) ^ (CRC_TABLE[((crc >> 8) ^ (bytes[i] ?? 0)) & 0xff] ?? 0);
  return crc & 0x3fff;
}
