/**
 * The Lua the cluster store runs. A script may touch one slot only, so a write is three steps:
 * the ledger reserves its bytes (the quota checks, atomic for every proxy), the body
 * is written on its own shard, and the ledger is corrected when the body step did not do what
 * was reserved. Keys in redis-cluster-keys.ts; every key a script touches is in its KEYS.
 */

import { USAGE_FUNCTIONS } from './redis-scripts.js';

// KEYS of every ledger script, in this order (clusterKeys().ledger).
const LEDGER = `
local K_TOTAL, K_USE, K_DIRS, K_STASH, K_SZ = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
${USAGE_FUNCTIONS}local function dropDir(d)
  dropUse(d)
  redis.call('ZREM', K_DIRS, d)
end
local function dropStash(n)
  local size = tonumber(redis.call('HGET', K_SZ, n) or '0')
  addUse('pruned', -size)
  redis.call('HDEL', K_SZ, n)
  redis.call('ZREM', K_STASH, n)
  return size
end
`;

/**
 * ARGV: dir, name, len (the bytes this write adds), prior (the entry's bytes before it, 0 for
 * an append), now, keepMs, maxSession, maxTotal. Returns {1, len}; {-1, held} over the session
 * quota; {-2, total, need} over the total (`need`: the bytes to free; what goes is decided
 * above the store, room.ts). Entries past the keep age leave the ledger here; their bodies
 * expire on their own.
 */
export const RESERVE_SCRIPT = `${LEDGER}
local dir, name, len, prior = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local now, keep = tonumber(ARGV[5]), tonumber(ARGV[6])
local maxSession, maxTotal = tonumber(ARGV[7]), tonumber(ARGV[8])
for _, d in ipairs(redis.call('ZRANGEBYSCORE', K_DIRS, '-inf', now - keep)) do dropDir(d) end
for _, n in ipairs(redis.call('ZRANGEBYSCORE', K_STASH, '-inf', now - keep)) do dropStash(n) end
local stash = dir == 'pruned'
local held = tonumber(redis.call('HGET', K_USE, dir) or '0')
if not stash and held + len - prior > maxSession then return {-1, held} end
local total = storeTotal()
if total + len - prior > maxTotal then return {-2, total, total + len - prior - maxTotal} end
addUse(dir, len - prior)
if stash then
  redis.call('ZADD', K_STASH, now, name)
  redis.call('HSET', K_SZ, name, prior + len)
else
  redis.call('ZADD', K_DIRS, now, dir)
end
return {1, len}
`;

/** ARGV: dir (a session). Takes it out of the ledger; returns the bytes its usage held. */
export const DROP_DIR_SCRIPT = `${LEDGER}
local held = tonumber(redis.call('HGET', K_USE, ARGV[1]) or '0')
dropDir(ARGV[1])
return held
`;

/**
 * ARGV: dir, name, diff (bytes to add to the usage, negative to give back), size (the stash
 * entry's bytes now; '' to leave it; '0' when it is gone, and then what the ledger holds for
 * it is given back, whatever diff says). Corrects what a reservation assumed.
 */
export const ADJUST_SCRIPT = `${LEDGER}
local dir, name, diff, size = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
if dir == 'pruned' and size == '0' then
  dropStash(name)
  return 1
end
addUse(dir, diff)
if dir == 'pruned' and size ~= '' then redis.call('HSET', K_SZ, name, size) end
return 1
`;

/**
 * KEYS: the body, then the session's names (absent for a stash entry). ARGV: body, mode ('put'
 * | 'nx' | 'append'), keepMs, maxFile, now, name. Returns {1, replaced, extend} (extend: 1 when
 * the session's older bodies are due to have their expiry pushed back, at most once per
 * thirtieth of the keep age), {0, 0} when mode is nx and the body exists, {-3, length} when an
 * append would pass maxFile.
 */
export const BODY_PUT_SCRIPT = `
local key, names = KEYS[1], KEYS[2]
local body, mode, keep = ARGV[1], ARGV[2], tonumber(ARGV[3])
if mode == 'nx' and redis.call('EXISTS', key) == 1 then return {0, 0, 0} end
local replaced = redis.call('STRLEN', key)
if mode == 'append' then
  if replaced + string.len(body) > tonumber(ARGV[4]) then return {-3, replaced, 0} end
  redis.call('APPEND', key, body)
  redis.call('PEXPIRE', key, keep)
  replaced = 0
else
  redis.call('SET', key, body, 'PX', keep)
end
local extend = 0
if names then
  local now = tonumber(ARGV[5])
  local newest = redis.call('ZRANGE', names, -1, -1, 'WITHSCORES')
  if now - tonumber(newest[2] or '0') > keep / 30 then extend = 1 end
  redis.call('ZADD', names, now, ARGV[6])
  redis.call('PEXPIRE', names, keep)
end
return {1, replaced, extend}
`;

/** KEYS: the body, then the session's names (absent for a stash entry). ARGV: name. Returns the bytes deleted, -1 when there was nothing. */
export const BODY_DELETE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local len = redis.call('STRLEN', KEYS[1])
redis.call('DEL', KEYS[1])
if KEYS[2] then redis.call('ZREM', KEYS[2], ARGV[1]) end
return len
`;
