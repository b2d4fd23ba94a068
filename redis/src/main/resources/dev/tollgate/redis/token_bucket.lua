-- Token bucket: refill on Redis's clock at millisecond precision (refilled_bucket, from
-- bucket_refill.lua), then take `cost` tokens.
--
-- KEYS[1]  the bucket
-- ARGV[1]  capacity, micro-tokens (integer, 1 .. 2^53)
-- ARGV[2]  refill rate, micro-tokens per ms (integer, 1 .. 2^53)
-- ARGV[3]  cost of this request, micro-tokens (integer, 1 .. 2^53)
--
-- Returns {allowed (1|0), whole tokens left, ms until `cost` tokens are there (-1: never, the cost
-- exceeds the capacity), ms until the bucket is full}.

local key = KEYS[1]
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local MICROS_PER_TOKEN = 1000000

local tokens, ts, lag, fill_millis = refilled_bucket(key, capacity, rate)

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
