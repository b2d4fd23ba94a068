-- Token lease: refill the bucket on Redis's clock (refilled_bucket, from bucket_hash.lua), then
-- take a batch of tokens for one gateway instance to spend in memory (LeasingBucketStore).
--
-- KEYS[1]  the bucket (the same hash as token_bucket.lua's)
-- ARGV[1]  capacity, micro-tokens (integer, 1 .. 2^53)
-- ARGV[2]  refill rate, micro-tokens per ms (integer, 1 .. 2^53)
-- ARGV[3]  the most to take, micro-tokens (integer, 0 .. capacity)
-- ARGV[4]  cost of one request, micro-tokens (integer, 1 .. capacity): only whole requests are granted
--
-- Returns {micro-tokens granted, micro-tokens left, ms until the bucket holds ARGV[3] again (0: now)}.
-- The grant is min(ARGV[3], tokens) rounded down to a multiple of the cost: a partial grant when the
-- bucket holds less than asked, none when it holds less than one request.

local key = KEYS[1]
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local wanted = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])

local tokens, ts, lag, fill_millis, xp = refilled_bucket(key, capacity, rate, redis_now())

local granted = math.min(wanted, tokens)
granted = granted - granted % cost
if granted > 0 then
  tokens = tokens - granted
  -- Like an admission: only a grant writes, and the key outlives the bucket's fill.
  store_bucket(key, tokens, ts, xp, capacity, rate, lag, fill_millis)
end

local wait = 0
if tokens < wanted then
  wait = lag + math.ceil((wanted - tokens) / rate)
end

return {granted, tokens, wait}
