-- Token return: give back leased tokens that a gateway instance did not spend (its lease expired, the
-- rule changed, or it shuts down). Refills on Redis's clock first (refilled_bucket, from
-- bucket_refill.lua), then adds, never above capacity.
--
-- KEYS[1]  the bucket (the same hash as token_bucket.lua's)
-- ARGV[1]  capacity, micro-tokens (integer, 1 .. 2^53)
-- ARGV[2]  refill rate, micro-tokens per ms (integer, 1 .. 2^53)
-- ARGV[3]  micro-tokens to give back (integer, 1 .. 2^53)
--
-- Returns the micro-tokens in the bucket afterwards.

local key = KEYS[1]
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local returned = tonumber(ARGV[3])

local tokens, ts, lag, fill_millis, valid = refilled_bucket(key, capacity, rate)

if not valid or tokens >= capacity then
  -- Missing (expired), corrupt, or full already: a full bucket, to which nothing can be added.
  return capacity
end
tokens = math.min(capacity, tokens + returned)
redis.call('HSET', key, 'tokens', tokens, 'ts', ts)
redis.call('PEXPIRE', key, 2 * fill_millis + lag)
return tokens
