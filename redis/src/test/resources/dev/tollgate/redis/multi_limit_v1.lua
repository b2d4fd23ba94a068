-- Every limit of one request, decided at once and all or nothing: token buckets and
-- calendar quotas, on Redis's clock, with the exact steps of ReferenceLimitEvaluator in
-- tollgate-core (change both together). The script first works every limit out (read, bring to
-- now), then writes only if every enforced limit has room; a rejected request writes NOTHING.
--
-- State: each key is a hash with one field per limit, named by the limit, and a field `_xp` (the
-- expiry last given to the key, ms on Redis's clock; no limit name starts with `_`). A field's value
-- is fixed-width binary (struct.pack, big-endian), its length telling the kind:
--   token bucket  13 bytes: micro-tokens (7 bytes) and the time of the last refill, ms (6 bytes)
--   quota         11 bytes: the start of the window counted, ms (6 bytes) and the count (5 bytes)
-- A value of another length (missing, corrupt, the other kind) is a full bucket or an unused quota.
-- All numbers stay integers below 2^53, where Lua's doubles are exact.
--
-- KEYS            the request's distinct state keys (rl:{tenant}:route, rl:{tenant}); one slot
-- ARGV[1]         n, the number of limits; then per limit, in the request's order:
--                   key index (into KEYS), field (the limit's name), kind, shadow (1|0), then
--   kind b          capacity (micro-tokens), refill rate (micro-tokens per ms), cost (micro-tokens)
--   kind f          quota, cost, unit ms, offset ms: windows of fixed length, computed here
--                   (UTC or a fixed offset; minute, hour, day): floor((t + offset) / unit) * unit - offset
--   kind t          quota, cost, m, then m window boundaries (ms, increasing): windows sent by the
--                   gateway (months, zones with clock changes; tests send short synthetic ones)
--
-- Reply (integers):
--   decided         admitted (1|0), now (ms), then per limit: room (1|0), remaining (whole tokens or
--                   quota left), retry-after ms (-1: never), reset ms, window start and end (ms; 0 0
--                   for a bucket)
--   stale windows   -1, now, the limit's index, the instant its table does not cover (now, or the
--                   start of a later window a count is kept for): nothing was decided nor written;
--                   the gateway asks again with a table that covers it. Never a guess: a wrong window
--                   could over-admit.

local MICROS_PER_TOKEN = 1000000
local NEVER = -1
local BUCKET_FORMAT, BUCKET_BYTES = '>I7I6', 13
local QUOTA_FORMAT, QUOTA_BYTES = '>I6I5', 11
local XP_FIELD = '_xp'
-- Covers the difference between the script's TIME and the clock Redis expires keys by.
local EXPIRY_MARGIN_MILLIS = 2

-- Redis's clock in ms, read once (as bucket_refill.lua's redis_now()): every limit is brought to
-- the same instant.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

-- ceil(a / b) for integers a >= 0, b > 0, corrected for the rounding of the division.
local function ceil_div(a, b)
  local q = math.floor(a / b)
  if q * b < a then
    q = q + 1
  elseif q > 0 and (q - 1) * b >= a then
    q = q - 1
  end
  return q
end

-- Parse the limits; collect each key's distinct fields for one HMGET per key. Each limit's table is
-- built with every field it will hold, so that it is sized once (this runs on every call).
local n = tonumber(ARGV[1])
local limits = {}
local reads = {}
local seen = {}
local at = 2
for i = 1, n do
  local ki, field, kind = tonumber(ARGV[at]), ARGV[at + 1], ARGV[at + 2]
  local l = { ki = ki, field = field, kind = kind, shadow = ARGV[at + 3] == '1',
    capacity = false, rate = false, cost = false, quota = false, unit = false, offset = false, bounds = false,
    room = false, value = false, tokens = false, lag = false, utokens = false, ulag = false,
    start = false, stop = false, needed = false, expiry = false }
  at = at + 4
  if kind == 'b' then
    l.capacity, l.rate, l.cost = tonumber(ARGV[at]), tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
    at = at + 3
  elseif kind == 'f' then
    l.quota, l.cost, l.unit, l.offset = tonumber(ARGV[at]), tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]),
        tonumber(ARGV[at + 3])
    at = at + 4
  else
    l.quota, l.cost = tonumber(ARGV[at]), tonumber(ARGV[at + 1])
    local m = tonumber(ARGV[at + 2])
    local bounds = {}
    for j = 1, m do
      bounds[j] = tonumber(ARGV[at + 2 + j])
    end
    l.bounds = bounds
    at = at + 3 + m
  end
  limits[i] = l
  local fields = reads[ki]
  if fields == nil then
    fields = { XP_FIELD }
    reads[ki] = fields
  end
  local id = ki .. ':' .. field
  if not seen[id] then
    seen[id] = true
    fields[#fields + 1] = field
  end
end

-- Read every key once: its fields of this request and its _xp.
local stored = {}
local xps = {}
local wrongtype = {}
for ki, fields in pairs(reads) do
  local values = {}
  local reply = redis.pcall('HMGET', KEYS[ki], unpack(fields))
  if reply.err then
    wrongtype[ki] = true -- not a hash: ours to replace, but only if the request is admitted
  else
    local xp = tonumber(reply[1])
    if xp ~= nil and xp == xp and xp >= 0 and xp ~= math.huge then
      xps[ki] = xp
    end
    for j = 2, #fields do
      values[fields[j]] = reply[j]
    end
  end
  stored[ki] = values
end

-- The window [start, stop) of limit l that holds t; nil when its table does not cover t.
local function window_of(l, t)
  if l.kind == 'f' then
    local start = math.floor((t + l.offset) / l.unit) * l.unit - l.offset
    return start, start + l.unit
  end
  local b = l.bounds
  for j = 1, #b - 1 do
    if b[j] <= t and t < b[j + 1] then
      return b[j], b[j + 1]
    end
  end
  return nil
end

-- A token bucket brought to now, as bucket_refill.lua's refilled_bucket. Sets on l: room, the
-- value to write, and (tokens, lag) as reported if admitted (charged) or not (uncharged).
local function bucket_step(l, value)
  local capacity, rate, cost = l.capacity, l.rate, l.cost
  local fill_millis = ceil_div(capacity, rate)
  local tokens, stored_ts = capacity, now
  if type(value) == 'string' and #value == BUCKET_BYTES then
    tokens, stored_ts = struct.unpack(BUCKET_FORMAT, value)
    if tokens > capacity then
      tokens = capacity -- the capacity was lowered since the last write
    end
  end
  -- The time never moves back (a step back of Redis's clock mints nothing), bounded by one fill time.
  local ts = stored_ts
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
  l.room = cost <= tokens
  local after = l.room and tokens - cost or tokens
  l.value = struct.pack(BUCKET_FORMAT, after, ts)
  -- Admitted, waits count from the time written; rejected, nothing is written and nothing refills
  -- before Redis's clock passes the stored time.
  l.tokens, l.lag = after, ts - now
  l.utokens, l.ulag = tokens, math.max(stored_ts, now) - now
  -- The key must outlive the bucket's refill (a missing bucket is a full one): as token_bucket.lua,
  -- needed until full, set to twice the fill time.
  l.needed = ts + ceil_div(capacity - after, rate)
  l.expiry = ts + 2 * fill_millis
  return nil
end

local function bucket_reply(l, reply, tokens, lag)
  local retry
  if l.cost > l.capacity then
    retry = NEVER
  elseif tokens >= l.cost then
    retry = 0
  else
    retry = lag + ceil_div(l.cost - tokens, l.rate)
  end
  local reset = lag
  if tokens < l.capacity then
    reset = lag + ceil_div(l.capacity - tokens, l.rate)
  end
  reply[#reply + 1] = math.floor(tokens / MICROS_PER_TOKEN)
  reply[#reply + 1] = retry
  reply[#reply + 1] = reset
  reply[#reply + 1] = 0
  reply[#reply + 1] = 0
end

-- A calendar quota: the window holding now, except that a count kept for a later window (Redis's
-- clock stepped back) keeps counting there; a count for an earlier window is dropped. Returns the
-- instant the table does not cover, if any.
local function quota_step(l, value)
  local start, stop = window_of(l, now)
  if start == nil then
    return now
  end
  local used = 0
  if type(value) == 'string' and #value == QUOTA_BYTES then
    local stored_start, stored_used = struct.unpack(QUOTA_FORMAT, value)
    if stored_start >= start then
      local s, e = window_of(l, stored_start)
      if s == nil then
        return stored_start
      end
      start, stop, used = s, e, stored_used
    end
  end
  l.room = l.cost <= l.quota - used
  local after = l.room and used + l.cost or used
  l.value = struct.pack(QUOTA_FORMAT, start, after)
  l.tokens, l.utokens = after, used
  l.start, l.stop = start, stop
  l.needed = stop -- after its window the count is dropped anyway
  l.expiry = stop
  return nil
end

local function quota_reply(l, reply, used)
  local left = l.quota - used
  if left < 0 then
    left = 0 -- a quota lowered below its count has none left
  end
  local retry
  if l.cost > l.quota then
    retry = NEVER
  elseif l.cost <= left then
    retry = 0
  else
    retry = l.stop - now
  end
  reply[#reply + 1] = left
  reply[#reply + 1] = retry
  reply[#reply + 1] = l.stop - now
  reply[#reply + 1] = l.start
  reply[#reply + 1] = l.stop
end

-- Work every limit out, in order; a key and field charged twice sees the first charge's take.
local written = {}
local admitted = true
for i, l in ipairs(limits) do
  local pending = written[l.ki]
  if pending == nil then
    pending = { values = {}, order = {} }
    written[l.ki] = pending
  end
  local value = pending.values[l.field]
  if value == nil then
    value = stored[l.ki][l.field]
  end
  if l.kind == 'b' then
    bucket_step(l, value)
  else
    local uncovered = quota_step(l, value)
    if uncovered ~= nil then
      return { -1, now, i, uncovered }
    end
  end
  if pending.values[l.field] == nil then
    pending.order[#pending.order + 1] = l.field
  end
  pending.values[l.field] = l.value
  admitted = admitted and (l.room or l.shadow)
end

-- Admitted: write every limit, one HSET per key, and move the key's expiry only when the one in
-- place (_xp) could come before a field it holds stops mattering. The expiry is never shortened:
-- the key's other fields (limits of other requests) may need it.
if admitted then
  for ki, pending in pairs(written) do
    local needed, expiry = 0, 0
    for _, l in ipairs(limits) do
      if l.ki == ki then
        needed = math.max(needed, l.needed)
        expiry = math.max(expiry, l.expiry)
      end
    end
    local key = KEYS[ki]
    if wrongtype[ki] then
      redis.call('DEL', key)
    end
    local args = {}
    for _, field in ipairs(pending.order) do
      args[#args + 1] = field
      args[#args + 1] = pending.values[field]
    end
    local xp = xps[ki]
    if xp ~= nil and xp - EXPIRY_MARGIN_MILLIS >= needed then
      redis.call('HSET', key, unpack(args))
    else
      expiry = math.max(expiry, needed + EXPIRY_MARGIN_MILLIS)
      if xp ~= nil and xp > expiry then
        expiry = xp
      end
      args[#args + 1] = XP_FIELD
      args[#args + 1] = expiry
      redis.call('HSET', key, unpack(args))
      redis.call('PEXPIRE', key, expiry - now)
    end
  end
end

local reply = { admitted and 1 or 0, now }
for _, l in ipairs(limits) do
  reply[#reply + 1] = l.room and 1 or 0
  if l.kind == 'b' then
    if admitted then
      bucket_reply(l, reply, l.tokens, l.lag)
    else
      bucket_reply(l, reply, l.utokens, l.ulag)
    end
  else
    quota_reply(l, reply, admitted and l.tokens or l.utokens)
  end
end
return reply
