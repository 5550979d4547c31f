/**
 * The Lua the Redis store runs, so that quota checks and the writes they guard are one atomic
 * step for every proxy sharing the server. Keys (prefix p):
 *   p:b:DIR:NAME  a body (string, PX = keep age)
 *   p:n:DIR       ZSET name -> last write (ms)
 *   p:dirs        ZSET session dir -> last write (ms); the stash ("pruned") is not a session
 *   p:use         HASH dir -> bytes held
 *   p:sz:pruned   HASH stash id -> bytes (stash entries expire one by one)
 * Keys are built inside the scripts, so the store is for a single Redis (not Redis Cluster).
 */

// Forgets what has expired: whole sessions idle past the keep age, and old stash entries.
const PURGE = `
local function purge(p, now, keep)
  for _, d in ipairs(redis.call('ZRANGEBYSCORE', p..':dirs', '-inf', now - keep)) do
    for _, n in ipairs(redis.call('ZRANGE', p..':n:'..d, 0, -1)) do redis.call('DEL', p..':b:'..d..':'..n) end
    redis.call('DEL', p..':n:'..d)
    redis.call('HDEL', p..':use', d)
    redis.call('ZREM', p..':dirs', d)
  end
  for _, n in ipairs(redis.call('ZRANGEBYSCORE', p..':n:pruned', '-inf', now - keep)) do
    local size = tonumber(redis.call('HGET', p..':sz:pruned', n) or '0')
    redis.call('HINCRBY', p..':use', 'pruned', -size)
    redis.call('HDEL', p..':sz:pruned', n)
    redis.call('ZREM', p..':n:pruned', n)
    redis.call('DEL', p..':b:pruned:'..n)
  end
end
`;

/**
 * ARGV: prefix, dir, name, body, now, keepMs, activeMs, maxSession, maxTotal, mode ('put' | 'nx').
 * Returns {1, stored}, {0, 0} when mode is nx and the key exists, {-1, held} over the session
 * quota, {-2, held} over the total even after removing the oldest idle sessions.
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
local stash = dir == 'pruned'
local held = tonumber(redis.call('HGET', p..':use', dir) or '0')
if not stash and held - replaced + len > maxSession then return {-1, held} end
local total = 0
for _, v in ipairs(redis.call('HVALS', p..':use')) do total = total + tonumber(v) end
if total - replaced + len > maxTotal then
  for _, d in ipairs(redis.call('ZRANGEBYSCORE', p..':dirs', '-inf', now - active)) do
    if total - replaced + len <= maxTotal then break end
    if d ~= dir then
      total = total - tonumber(redis.call('HGET', p..':use', d) or '0')
      for _, n in ipairs(redis.call('ZRANGE', p..':n:'..d, 0, -1)) do redis.call('DEL', p..':b:'..d..':'..n) end
      redis.call('DEL', p..':n:'..d)
      redis.call('HDEL', p..':use', d)
      redis.call('ZREM', p..':dirs', d)
    end
  end
  if total - replaced + len > maxTotal then return {-2, total} end
end
redis.call('SET', key, body, 'PX', keep)
redis.call('HINCRBY', p..':use', dir, len - replaced)
redis.call('ZADD', p..':n:'..dir, now, name)
if stash then
  redis.call('HSET', p..':sz:pruned', name, len)
else
  redis.call('ZADD', p..':dirs', now, dir)
  -- A session lives the keep age past its newest write, like a file store session directory.
  for _, n in ipairs(redis.call('ZRANGE', p..':n:'..dir, 0, -1)) do redis.call('PEXPIRE', p..':b:'..dir..':'..n, keep) end
  redis.call('PEXPIRE', p..':n:'..dir, keep)
end
return {1, len}
`;

/** ARGV: prefix, dir, name. Returns 1 when something was deleted. */
export const DELETE_SCRIPT = `
local p, dir, name = ARGV[1], ARGV[2], ARGV[3]
local key = p..':b:'..dir..':'..name
if redis.call('EXISTS', key) == 0 then return 0 end
local len = redis.call('STRLEN', key)
redis.call('DEL', key)
redis.call('HINCRBY', p..':use', dir, -len)
redis.call('ZREM', p..':n:'..dir, name)
if dir == 'pruned' then redis.call('HDEL', p..':sz:pruned', name) end
return 1
`;
