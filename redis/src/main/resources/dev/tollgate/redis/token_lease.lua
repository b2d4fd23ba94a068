-- Token lease: refill the bucket on Redis's clock, then take a batch of tokens for one gateway
-- instance to spend in memory (LeasingBucketStore). The same bucket, the same refill steps and the
-- same corruption rules as token_bucket.lua; change both together.
--
-- KEYS[1]  the bucket: a hash with fields `tokens` (micro-tokens, an integer) and `ts` (ms, the
--          Redis TIME of the last refill)
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

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local fill_millis = math.ceil(capacity / rate)

-- Refill: the same steps as token_bucket.lua.
local tokens, ts
local stored = redis.pcall('HMGET', key, 'tokens', 'ts')
if stored.err then
  redis.call('DEL', key)
else
  tokens = tonumber(stored[1])
  ts = tonumber(stored[2])
end
if tokens == nil or ts == nil or tokens ~= tokens or ts ~= ts
    or tokens < 0 or ts < 0 or tokens == math.huge or ts == math.huge then
  tokens = capacity
  ts = now
end
tokens = math.floor(tokens)
if tokens > capacity then
  tokens = capacity
end
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
local lag = ts - now

local granted = math.min(wanted, tokens)
granted = granted - granted % cost
if granted > 0 then
  tokens = tokens - granted
  -- Like an admission: only a grant writes, and the key lives twice its fill time.
  redis.call('HSET', key, 'tokens', tokens, 'ts', ts)
  redis.call('PEXPIRE', key, 2 * fill_millis + lag)
end

local wait = 0
if tokens < wanted then
  wait = lag + math.ceil((wanted - tokens) / rate)
end

return {granted, tokens, wait}
