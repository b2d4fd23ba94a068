-- A token bucket brought to now: the one copy of these steps in Lua, the same as TokenBucketMath in
-- tollgate-core (change both together). LuaScript puts this text in front of multi_limit.lua, and of
-- bucket_hash.lua for the scripts that keep a bucket as a hash of its own (token_bucket.lua,
-- token_lease.lua, token_return.lua).
--
-- Only a function is defined here: a script's body runs on every call, and every function it defines
-- is a closure made again each time (a few hundred instructions of Redis's CPU), so a script is given
-- only the functions it calls. All numbers stay integers below 2^53, where Lua's doubles are exact.

-- Brings a bucket that held `tokens` micro-tokens at `ts` to `now`. Returns the tokens (never above
-- capacity) and the timestamp to store with them.
local function refill(tokens, ts, capacity, rate, fill_millis, now)
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
  return tokens, ts
end

