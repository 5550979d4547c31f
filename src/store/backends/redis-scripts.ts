/**
 * The Lua the Redis store runs, so that quota checks and the writes they guard are one atomic
 * step for every proxy sharing the server. Keys (prefix p):
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

// Forgets what has expired: whole sessions idle past the keep age, and old stash entries.
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
 * ARGV: prefix, dir, name, body, now, keepMs, activeMs, maxSession, maxTotal, mode ('put' | 'nx' |
 * 'append'), maxFile (for 'append'). Returns {1, stored}, {0, 0} when mode is nx and the key
 * exists, {-3, length} when an append would take the entry past maxFile, {-1, held} over the session
 * quota, {-2, held} over the total even after removing the oldest idle sessions and the oldest
 * stash entries no active session's frozen decision names.
 */
export const PUT_SCRIPT = `${PURGE}
local p, dir, name, body = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local now, keep, active = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local maxSession, maxTotal = tonumber(ARGV[8]), tonumber(ARGV[9])
purge(p, now, keep)
local key = p..':b:'..dir..':'..name
if ARGV[10] == 'nx' and redis.call('EXISTS', key) == 1 then return {0, 0} end
local len = string.len(body)
local replaced = redis.call('STRLEN', key)
local append = ARGV[10] == 'append'
if append then
  if replaced + len > tonumber(ARGV[11]) then return {-3, replaced} end
  replaced = 0
end
local stash = dir == 'pruned'
local held = tonumber(redis.call('HGET', p..':use', dir) or '0')
if not stash and held - replaced + len > maxSession then return {-1, held} end
local total = storeTotal()
if total - replaced + len > maxTotal then
  for _, d in ipairs(redis.call('ZRANGEBYSCORE', p..':dirs', '-inf', now - active)) do
    if total - replaced + len <= maxTotal then break end
    if d ~= dir then
      total = total - tonumber(redis.call('HGET', p..':use', d) or '0')
      for _, n in ipairs(redis.call('ZRANGE', p..':n:'..d, 0, -1)) do redis.call('DEL', p..':b:'..d..':'..n) end
      redis.call('DEL', p..':n:'..d)
      dropUse(d)
      redis.call('ZREM', p..':dirs', d)
    end
  end
  if total - replaced + len > maxTotal then
    -- Then the oldest stash entries, except those a frozen decision of an active session names
    -- (its next turn replays their markers).
    local named = {}
    for _, d in ipairs(redis.call('ZRANGEBYSCORE', p..':dirs', now - active, '+inf')) do
      for _, n in ipairs(redis.call('ZRANGE', p..':n:'..d, 0, -1)) do
        if string.sub(n, 1, 3) == 'fz_' then
          local b = redis.call('GET', p..':b:'..d..':'..n) or ''
          for id in string.gmatch(b, '"stashId":"([%w_%-]+)"') do named[id] = true end
          for id in string.gmatch(b, '<<sw:([%w_%-]+)>>') do named[id] = true end
        end
      end
    end
    for _, n in ipairs(redis.call('ZRANGE', p..':n:pruned', 0, -1)) do
      if total - replaced + len <= maxTotal then break end
      if not named[n] and not (stash and n == name) then total = total - dropStash(p, n) end
    end
  end
  if total - replaced + len > maxTotal then return {-2, total} end
end
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
