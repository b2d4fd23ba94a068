-- Token bucket: refill on Redis's clock at millisecond precision, then take `cost` tokens.
-- The same steps as TokenBucketMath in tollgate-core; change both together.
--
-- KEYS[1]  the bucket: a hash with fields `tokens` (micro-tokens, an integer) and `ts` (ms, the
--          Redis TIME of the last refill)
-- ARGV[1]  capacity, micro-tokens (integer, 1 .. 2^53)
-- ARGV[2]  refill rate, micro-tokens per ms (integer, 1 .. 2^53)
-- ARGV[3]  cost of this request, micro-tokens (integer, 1 .. 2^53)
--
-- Returns {allowed (1|0), whole tokens left, ms until `cost` tokens are there (-1: never, the cost
-- exceeds the capacity), ms until the bucket is full}.
--
-- All numbers stay integers below 2^53, where Lua's doubles are exact: no drift.

local key = KEYS[1]
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local MICROS_PER_TOKEN = 1000000

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local fill_millis = math.ceil(capacity / rate)

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
if tokens == nil or ts == nil or tokens ~= tokens or ts ~= ts
    or tokens < 0 or ts < 0 or tokens == math.huge or ts == math.huge then
  tokens = capacity
  ts = now
end
tokens = math.floor(tokens)
if tokens > capacity then
  tokens = capacity -- the capacity was lowered since the last write
end

-- The stored timestamp never moves backwards: if Redis's clock stepped back, nothing refills until
-- it catches up, so a step back cannot mint tokens. The wait is bounded by one fill time: a bucket
-- last written further ahead than that is treated as written one fill time from now.
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
local lag = ts - now -- > 0 only while the clock is behind the stored timestamp

local allowed = 0
if cost <= tokens then
  tokens = tokens - cost
  allowed = 1
  -- Only an admission changes the bucket. A rejection writes nothing: refill is linear, so the
  -- stored (tokens, ts) still yields the same result later, and hot rejected keys cost no writes.
  redis.call('HSET', key, 'tokens', tokens, 'ts', ts)
  -- Twice the time to fill from empty: by expiry the bucket is full, the same as a missing one.
  redis.call('PEXPIRE', key, 2 * fill_millis + lag)
end

local retry
if cost > capacity then
  retry = -1
elseif tokens >= cost then
  retry = 0
else
  retry = lag + math.ceil((cost - tokens) / rate)
end
local until_full = lag + math.ceil((capacity - tokens) / rate)

return {allowed, math.floor(tokens / MICROS_PER_TOKEN), retry, until_full}
