-- Token buckets: for each key, refill on Redis's clock at millisecond precision (refilled_bucket, from
-- bucket_hash.lua), then take that request's cost. One call decides the requests of many buckets
-- (the gateway sends together the requests that arrive together); each bucket is decided exactly as
-- if it were alone, in key order, and a key named twice is decided twice, the second time on what
-- the first left. The whole call is atomic, like any script.
--
-- KEYS[i]            bucket i (i = 1 .. #KEYS)
-- ARGV[3i-2]         its capacity, micro-tokens (integer, 1 .. 2^53)
-- ARGV[3i-1]         its refill rate, micro-tokens per ms (integer, 1 .. 2^53)
-- ARGV[3i]           the cost of its request, micro-tokens (integer, 1 .. 2^53)
--
-- Returns 4 integers per bucket, in key order: allowed (1|0), whole tokens left, ms until `cost`
-- tokens are there (-1: never, the cost exceeds the capacity), ms until the bucket is full.

local MICROS_PER_TOKEN = 1000000
local now = redis_now()
local reply = {}

for i = 1, #KEYS do
  local key = KEYS[i]
  local capacity = tonumber(ARGV[3 * i - 2])
  local rate = tonumber(ARGV[3 * i - 1])
  local cost = tonumber(ARGV[3 * i])

  local tokens, ts, lag, fill_millis, xp = refilled_bucket(key, capacity, rate, now)

  local allowed = 0
  if cost <= tokens then
    tokens = tokens - cost
    allowed = 1
    -- Only an admission changes the bucket. A rejection writes nothing: refill is linear, so the
    -- stored (tokens, ts) still yields the same result later, and hot rejected keys cost no writes.
    store_bucket(key, tokens, ts, xp, capacity, rate, lag, fill_millis)
  end

  local retry
  if cost > capacity then
    retry = -1
  elseif tokens >= cost then
    retry = 0
  else
    retry = lag + math.ceil((cost - tokens) / rate)
  end

  local base = 4 * (i - 1)
  reply[base + 1] = allowed
  reply[base + 2] = math.floor(tokens / MICROS_PER_TOKEN)
  reply[base + 3] = retry
  reply[base + 4] = lag + math.ceil((capacity - tokens) / rate)
end

return reply
