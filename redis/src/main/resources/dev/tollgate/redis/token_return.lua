-- Token return: give back leased tokens that a gateway instance did not spend (its lease expired, the
-- rule changed, or it shuts down).
--
-- KEYS[1]  the bucket (the same hash as token_bucket.lua's)
-- ARGV[1]  capacity, micro-tokens (integer, 1 .. 2^53): what the tokens given back may fill it to
-- ARGV[2]  micro-tokens to give back (integer, 1 .. 2^53)
--
-- Returns the micro-tokens stored in the bucket afterwards (the capacity for a missing bucket).
--
-- No refill: the tokens are added to the bucket as last written (stored_bucket, from
-- bucket_hash.lua), and `ts` and the key's expiry stay as they are. The next script that reads the
-- bucket refills it from `ts` at the rate of the rule in force for that request. While the rule
-- stands (capacity C, rate r), this is exactly what refilling first would give: with s stored at ts
-- and g given back at `now`, a read at any later t sees min(C, min(C, s + r(now - ts)) + g + r(t - now))
-- after refill-then-add and min(C, s + g + r(t - ts)) after adding at ts, which are equal since
-- min(C, min(C, x) + y) = min(C, x + y) for y >= 0. After a rule change, refilling here would apply
-- the lease's old rate to a time that other instances may have spent under the new one (minting
-- tokens if the rate fell, losing them if it rose). The expiry needs no change: the last writer set
-- it so that the bucket is full by then under its limits, and a fuller bucket is full no later.
-- TokenLeaseSource.giveBack (tollgate-core) states the contract; LocalTokenBucket.giveBack does the
-- same in memory.

local key = KEYS[1]
local capacity = tonumber(ARGV[1])
local returned = tonumber(ARGV[2])

local tokens, ts, valid = stored_bucket(key)

if not valid then
  -- Missing (expired) or corrupt: a full bucket, to which nothing can be added.
  return capacity
end
if tokens >= capacity then
  -- Full already, or holding more under a capacity raised since the lease: never lowered here.
  return tokens
end
tokens = math.min(capacity, tokens + returned)
redis.call('HSET', key, 'tokens', tokens)
return tokens
