/**
 * The Lua the Redis backend runs, so that a write's quota check, the write and its count are one
 * atomic step for every proxy sharing the server (what to remove when full is decided above the
 * backend). Keys (prefix p):
 *   p:b:DIR:NAME  a body (string, PX = keep age)
 *   p:n:DIR       ZSET name -> last write (ms)
 *   p:dirs        ZSET session dir -> last write (ms); the stash ("pruned") is not a session
 *   p:use         HASH dir -> bytes held
 *   p:sz:pruned   HASH stash id -> bytes (stash entries expire one by one)
 *   p:total       the sum of p:use, kept as it changes; it expires within an hour and is then
 *                 summed again, so a writer that did not keep it (an older spillway) is
 *                 corrected within the hour
 * Keys are built inside the scripts, so the store is for a single Redis; a Redis Cluster has
 * its own layout and scripts (redis-cluster-scripts.ts).
 */

/**
 * The store's total, without summing every session's usage on each write, and the one way
 * usage changes: a dir's count and the total move together. Both stores' scripts run it, after
 * naming K_TOTAL (the total's key) and K_USE (the HASH dir -> bytes).
 */
export const USAGE_FUNCTIONS = `
local function storeTotal()
  local t = redis.call('GET', K_TOTAL)
  if t then return tonumber(t) end
  local sum = 0
  for _, v in ipairs(redis.call('HVALS', K_USE)) do sum = sum + tonumber(v) end
  redis.call('SET', K_TOTAL, sum, 'PX', 3600000)
  return sum
end
local function addUse(d, n)
  -- Nothing to count; and -0 (an empty entry removed) would reach Redis as "-0", not an integer.
  if n == 0 then return end
  storeTotal()
  redis.call('HINCRBY', K_USE, d, n)
  redis.call('INCRBY', K_TOTAL, n)
end
local function dropUse(d)
  addUse(d, -tonumber(redis.call('HGET', K_USE, d) or '0'))
  redis.call('HDEL', K_USE, d)
end
`;

// Every script here takes the prefix as ARGV[1].
const USAGE = `
local K_TOTAL, K_USE = ARGV[1]..':total', ARGV[1]..':use'
${USAGE_FUNCTIONS}`;

// The ledger forgets what the keys' TTLs expired: whole sessions idle past the keep age, and
// old stash entries.
const PURGE = `${USAGE}
local function dropStash(p, n)
  local size = tonumber(redis.call('HGET', p..':sz:pruned', n) or '0')
  addUse('pruned', -size)
  redis.call('HDEL', p..':sz:pruned', n)
  redis.call('ZREM', p..':n:pruned', n)
  redis.call('DEL', p..':b:pruned:'..n)
  return size
end
local function purge(p, now, keep)
  for _, d in ipairs(redis.call('ZRANGEBYSCORE', p..':dirs', '-inf', now - keep)) do
    for _, n in ipairs(redis.call('ZRANGE', p..':n:'..d, 0, -1)) do redis.call('DEL', p..':b:'..d..':'..n) end
    redis.call('DEL', p..':n:'..d)
    dropUse(d)
    redis.call('ZREM', p..':dirs', d)
  end
  for _, n in ipairs(redis.call('ZRANGEBYSCORE', p..':n:pruned', '-inf', now - keep)) do dropStash(p, n) end
end
`;

/**
 * ARGV: prefix, dir, name, body, now, keepMs, maxSession, maxTotal, mode ('put' | 'nx' |
 * 'append'), maxFile (for 'append'). Returns {1, stored}, {0, 0} when mode is nx and the key
 * exists, {-3, length} when an append would take the entry past maxFile, {-1, held} over the
 * session quota, {-2, total, need} over the total (`need`: the bytes to free). It removes
 * nothing to make room: that is decided above the store (room.ts), the same for every backend.
 */
export const PUT_SCRIPT = `${PURGE}
local p, dir, name, body = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local now, keep = tonumber(ARGV[5]), tonumber(ARGV[6])
local maxSession, maxTotal = tonumber(ARGV[7]), tonumber(ARGV[8])
purge(p, now, keep)
local key = p..':b:'..dir..':'..name
if ARGV[9] == 'nx' and redis.call('EXISTS', key) == 1 then return {0, 0} end
local len = string.len(body)
local replaced = redis.call('STRLEN', key)
local append = ARGV[9] == 'append'
if append then
  if replaced + len > tonumber(ARGV[10]) then return {-3, replaced} end
  replaced = 0
end
local stash = dir == 'pruned'
local held = tonumber(redis.call('HGET', p..':use', dir) or '0')
if not stash and held - replaced + len > maxSession then return {-1, held} end
local total = storeTotal()
if total - replaced + len > maxTotal then return {-2, total, total - replaced + len - maxTotal} end
if append then
  redis.call('APPEND', key, body)
  redis.call('PEXPIRE', key, keep)
else
  redis.call('SET', key, body, 'PX', keep)
end
addUse(dir, len - replaced)
redis.call('ZADD', p..':n:'..dir, now, name)
if stash then
  redis.call('HSET', p..':sz:pruned', name, len)
else
  -- A session lives the keep age past its newest write, like a file store session directory.
  -- Its older entries' expiry is pushed back at most once per thirtieth of the keep age (a day
  -- for the default 30 days), so a put does not cost a PEXPIRE per entry the session holds.
  local last = tonumber(redis.call('ZSCORE', p..':dirs', dir) or '0')
  redis.call('ZADD', p..':dirs', now, dir)
  if now - last > keep / 30 then
    for _, n in ipairs(redis.call('ZRANGE', p..':n:'..dir, 0, -1)) do redis.call('PEXPIRE', p..':b:'..dir..':'..n, keep) end
  end
  redis.call('PEXPIRE', p..':n:'..dir, keep)
end
return {1, len}
`;

/** ARGV: prefix, dir. Removes a whole directory; returns the bytes its usage held. */
export const DROP_DIR_SCRIPT = `${USAGE}
local p, dir = ARGV[1], ARGV[2]
local held = tonumber(redis.call('HGET', K_USE, dir) or '0')
for _, n in ipairs(redis.call('ZRANGE', p..':n:'..dir, 0, -1)) do redis.call('DEL', p..':b:'..dir..':'..n) end
redis.call('DEL', p..':n:'..dir)
dropUse(dir)
if dir == 'pruned' then redis.call('DEL', p..':sz:pruned') else redis.call('ZREM', p..':dirs', dir) end
return held
`;

/** ARGV: prefix, dir, name. Returns 1 when something was deleted. */
export const DELETE_SCRIPT = `${USAGE}
local p, dir, name = ARGV[1], ARGV[2], ARGV[3]
local key = p..':b:'..dir..':'..name
if redis.call('EXISTS', key) == 0 then return 0 end
local len = redis.call('STRLEN', key)
redis.call('DEL', key)
addUse(dir, -len)
redis.call('ZREM', p..':n:'..dir, name)
if dir == 'pruned' then redis.call('HDEL', p..':sz:pruned', name) end
return 1
`;
