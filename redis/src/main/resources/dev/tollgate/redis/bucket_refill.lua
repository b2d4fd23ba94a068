-- Shared by token_bucket.lua, token_lease.lua and token_return.lua: LuaScript puts this text in
-- front of each of them when it loads them, so the three read a bucket the same way (the first two
-- refill it with refilled_bucket; a give-back only reads it, with stored_bucket).
-- The same steps as TokenBucketMath in tollgate-core; change both together.
--
-- A bucket is a hash with fields `tokens` (micro-tokens, an integer) and `ts` (ms, the Redis TIME
-- of the last refill). All numbers stay integers below 2^53, where Lua's doubles are exact.

-- Reads the bucket at `key` as last written. Returns:
--   tokens  micro-tokens stored (rounded down), nil when invalid
--   ts      the stored timestamp, nil when invalid
--   valid   false when the bucket is missing or corrupt (then it counts as full)
local function stored_bucket(key)
  local tokens, ts
  local stored = redis.pcall('HMGET', key, 'tokens', 'ts')
  if stored.err then
    -- Not a hash (WRONGTYPE): the key is in our namespace, so it is ours to replace.
    redis.call('DEL', key)
  else
    tokens = tonumber(stored[1])
    ts = tonumber(stored[2])
  end

  -- A missing or corrupt bucket (absent, non-numeric, NaN, infinite, negative) is a full one.
  local valid = not (tokens == nil or ts == nil or tokens ~= tokens or ts ~= ts
      or tokens < 0 or ts < 0 or tokens == math.huge or ts == math.huge)
  if not valid then
    return nil, nil, false
  end
  return math.floor(tokens), ts, true -- older scripts stored fractions; ours store integers
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
--   valid        false when the bucket was missing or corrupt (then it counts as full)
local function refilled_bucket(key, capacity, rate, now)
  local fill_millis = math.ceil(capacity / rate)

  local tokens, ts, valid = stored_bucket(key)
  if not valid then
    tokens = capacity
    ts = now
  end
  if tokens > capacity then
    tokens = capacity -- the capacity was lowered since the last write
  end

  -- The stored timestamp never moves backwards: if Redis's clock stepped back, nothing refills
  -- until it catches up, so a step back cannot mint tokens. The wait is bounded by one fill time:
  -- a bucket last written further ahead than that is treated as written one fill time from now.
  if ts > now + fill_millis then
    ts = now + fill_millis
  end
  if now > ts then
    local elapsed = now - ts
    if elapsed * rate >= capacity - tokens then
      tokens = capacity
    else
      tokens = tokens + elapsed * rate
    end
    ts = now
  end
  return tokens, ts, ts - now, fill_millis, valid
end

