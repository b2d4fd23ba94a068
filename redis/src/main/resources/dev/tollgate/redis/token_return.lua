-- Token return: give back leased tokens that a gateway instance did not spend (its lease expired, the
-- rule changed, or it shuts down). Refills on Redis's clock first, then adds, never above capacity.
-- The same bucket, refill steps and corruption rules as token_bucket.lua; change them together.
--
-- KEYS[1]  the bucket: a hash with fields `tokens` (micro-tokens) and `ts` (ms)
-- ARGV[1]  capacity, micro-tokens (integer, 1 .. 2^53)
-- ARGV[2]  refill rate, micro-tokens per ms (integer, 1 .. 2^53)
-- ARGV[3]  micro-tokens to give back (integer, 1 .. 2^53)
--
-- Returns the micro-tokens in the bucket afterwards.

local key = KEYS[1]
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local returned = tonumber(ARGV[3])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local fill_millis = math.ceil(capacity / rate)

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
  -- Missing (expired) or corrupt: a full bucket, to which nothing can be added.
  return capacity
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

if tokens >= capacity then
  return capacity -- full already: writing would change nothing
end
tokens = math.min(capacity, tokens + returned)
redis.call('HSET', key, 'tokens', tokens, 'ts', ts)
redis.call('PEXPIRE', key, 2 * fill_millis + lag)
return tokens
