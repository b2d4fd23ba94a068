-- A token bucket kept as a Redis hash of its own: read, refilled (refill, from bucket_refill.lua,
-- which LuaScript puts in front of this text) and written back, by token_bucket.lua, token_lease.lua
-- and token_return.lua (a give-back only reads it, with stored_bucket). multi_limit.lua keeps its
-- states otherwise and does not load this.
--
-- A bucket is a hash with fields `tokens` (micro-tokens, an integer), `ts` (ms, the Redis TIME of
-- the last refill) and `xp` (ms, Redis TIME: the expiry the key was last given, see store_bucket;
-- buckets written before it existed have none). All numbers stay integers below 2^53, where Lua's
-- doubles are exact.

-- Reads the bucket at `key` as last written. Returns:
--   tokens  micro-tokens stored (rounded down), nil when invalid
--   ts      the stored timestamp, nil when invalid
--   valid   false when the bucket is missing or corrupt (then it counts as full)
--   xp      the expiry last given to the key (ms), nil when unknown
local function stored_bucket(key)
  local tokens, ts, xp
  local stored = redis.pcall('HMGET', key, 'tokens', 'ts', 'xp')
  if stored.err then
    -- Not a hash (WRONGTYPE): the key is in our namespace, so it is ours to replace.
    redis.call('DEL', key)
  else
    tokens = tonumber(stored[1])
    ts = tonumber(stored[2])
    xp = tonumber(stored[3])
  end

  -- A missing or corrupt bucket (absent, non-numeric, NaN, infinite, negative) is a full one.
  local valid = not (tokens == nil or ts == nil or tokens ~= tokens or ts ~= ts
      or tokens < 0 or ts < 0 or tokens == math.huge or ts == math.huge)
  if not valid then
    return nil, nil, false
  end
  return math.floor(tokens), ts, true, xp -- older scripts stored fractions; ours store integers
end

-- Redis's clock, in ms. A script reads it once: every bucket it touches is refilled to the same
-- instant, the moment the script runs.
local function redis_now()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- Reads the bucket at `key` and refills it to `now` (redis_now()). Returns:
--   tokens       micro-tokens in the bucket now (never above capacity)
--   ts           the timestamp to store with them (never moved backwards)
--   lag          ms until Redis's clock reaches ts (> 0 only after the clock stepped back)
--   fill_millis  ms an empty bucket takes to fill
--   xp           the expiry last given to the key (ms), nil when unknown or the bucket was missing
--                or corrupt (then it counts as full); for store_bucket
local function refilled_bucket(key, capacity, rate, now)
  local fill_millis = math.ceil(capacity / rate)

  local tokens, ts, valid, xp = stored_bucket(key)
  if not valid then
    tokens = capacity
    ts = now
  end
  tokens, ts = refill(tokens, ts, capacity, rate, fill_millis, now)
  return tokens, ts, ts - now, fill_millis, xp
end

-- Writes a bucket refilled by refilled_bucket and then taken from (an admission, a lease), with an
-- expiry that lets the key outlive the time the bucket takes to be full again: then a missing
-- bucket is the same as a full one. The expiry set is twice the time to fill from empty, plus any
-- catch-up wait (lag), which puts it at ts + 2 × fill_millis, and it is remembered in `xp`. It is
-- set again only when the one in place (xp) could come before the bucket is full: so a key written
-- often costs one PEXPIRE per fill time or so, not one per write. A bucket without xp (new, or
-- written by an older version) gets one, and so does one whose xp lies beyond any expiry this would
-- set (not ours, or corrupt) or is not a number. The margin covers the difference between the
-- script's TIME and the clock Redis expires keys by.
local EXPIRY_MARGIN_MILLIS = 2
local function store_bucket(key, tokens, ts, xp, capacity, rate, lag, fill_millis)
  local expires_at = ts + 2 * fill_millis
  local full_at = ts + math.ceil((capacity - tokens) / rate)
  if xp ~= nil and xp - EXPIRY_MARGIN_MILLIS >= full_at and xp <= expires_at then
    redis.call('HSET', key, 'tokens', tokens, 'ts', ts)
    return
  end
  redis.call('HSET', key, 'tokens', tokens, 'ts', ts, 'xp', expires_at)
  redis.call('PEXPIRE', key, 2 * fill_millis + lag)
end

