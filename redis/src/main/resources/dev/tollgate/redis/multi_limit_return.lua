-- Multi-limit lease return: give back what the unspent requests of a multi-limit lease took (the
-- lease expired, its quota window ended, or the gateway shuts down), limit by limit, on the states
-- multi_limit.lua keeps (one hash field per limit, fixed-width binary; see that script). Loaded alone.
--
-- KEYS          the distinct keys of the states given to (one tenant's: one slot)
-- ARGV, 5 per state:
--   key index   into KEYS
--   field       the limit's state field
--   kind        1 a token bucket, 2 a quota
--   amount      micro-tokens (bucket) or units (quota) to give back, integer >= 1
--   bound       bucket: the capacity (micro-tokens) the tokens given back may fill it to;
--               quota: the start (ms) of the window the lease was counted in
--
-- Returns the number of states changed.
--
-- A bucket gets the tokens back as last written, without refilling it, never above the capacity and
-- never lowered if it holds more (token_return.lua's rule and reasons: while the limit stands this is
-- exactly what refilling first would give; after a change, no old rate is applied to new time). A
-- quota's count is lowered only if it still counts the lease's window: a count of a later window is
-- left alone, so nothing leased in one window is ever spent, or given back, in the next. A missing
-- state (a full bucket, an unused or expired quota) or one of another kind is left as it is, and so is
-- the key's expiry (HSET keeps it; every state given to was written when the lease was taken, and the
-- expiry then set covers it).

local BUCKET_FORMAT, BUCKET_BYTES = '>I7I6', 13
local QUOTA_FORMAT, QUOTA_BYTES = '>I6I5', 11

local changed = 0
for i = 1, #ARGV, 5 do
  local key = KEYS[tonumber(ARGV[i])]
  local field = ARGV[i + 1]
  local kind = tonumber(ARGV[i + 2])
  local amount = tonumber(ARGV[i + 3])
  local bound = tonumber(ARGV[i + 4])
  local value = redis.pcall('HGET', key, field)
  if type(value) == 'string' then
    if kind == 1 and #value == BUCKET_BYTES then
      local tokens, ts = struct.unpack(BUCKET_FORMAT, value)
      if tokens < bound then
        redis.call('HSET', key, field, struct.pack(BUCKET_FORMAT, math.min(bound, tokens + amount), ts))
        changed = changed + 1
      end
    elseif kind == 2 and #value == QUOTA_BYTES then
      local start, used = struct.unpack(QUOTA_FORMAT, value)
      if start == bound and used > 0 then
        redis.call('HSET', key, field, struct.pack(QUOTA_FORMAT, start, math.max(0, used - amount)))
        changed = changed + 1
      end
    end
  end
end
return changed
