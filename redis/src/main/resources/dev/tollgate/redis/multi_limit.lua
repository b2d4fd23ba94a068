-- Every limit of a request, decided at once and all or nothing (issue 22): token buckets and
-- calendar quotas, on Redis's clock, with the exact steps of ReferenceLimitEvaluator in
-- tollgate-core (change both together). One call decides the requests that arrive together (a
-- batch, one slot), one after the other in the order sent, each exactly as if it were alone: every
-- limit of a request is worked out (read, brought to now) first, and its takes are kept only if every
-- enforced limit has room; a rejected request changes NOTHING.
--
-- State: each key is a hash with one field per limit, named by the limit, and a field `_xp` (the
-- expiry last given to the key, ms on Redis's clock; no limit name starts with `_`). A field's value
-- is fixed-width binary (struct.pack, big-endian), its length telling the kind:
--   token bucket  13 bytes: micro-tokens (7 bytes) and the time of the last refill, ms (6 bytes)
--   quota         11 bytes: the start of the window counted, ms (6 bytes) and the count (5 bytes)
-- A value of another length (missing, corrupt, the other kind) is a full bucket or an unused quota.
-- All numbers stay integers below 2^53, where Lua's doubles are exact.
--
-- Cost: every Lua instruction, table access and C call (struct.pack/unpack, string.byte) costs Redis
-- CPU, and so does every integer answered, so the arguments say each thing once a call and the
-- reply says only what the gateway cannot know (MultiLimitRedisCostBench measures it):
-- KEYS                the batch's distinct state keys (rl:{tenant}:route, rl:{tenant}); one slot; at most 255
-- ARGV[1]             one byte per state (a distinct key and field of the batch): its key's index in
--                     KEYS; a key's states come one after the other (one HMGET per key reads them)
-- ARGV[1 + s]         state s's field (the limit's name), s = 1 .. S (S = #ARGV[1], at most 255)
-- ARGV[S + 2]         the requests, one byte each: n (its limits), repeats (1 if a state is charged
--                     twice, else 0), then per limit, in the request's order: its state and its definition
-- ARGV[S + 2 + d]     definition d (at most 255; requests of one plan share them), struct '>BBdddd' then
--                     any boundaries: kind (1 bucket, 2 fixed windows, 3 window table), shadow (1|0), then
--   kind 1 (bucket)     capacity (micro-tokens), refill rate (micro-tokens per ms), cost (micro-tokens),
--                       fill time (ms, ceil(capacity / rate))
--   kind 2 (fixed)      quota, cost, unit ms, offset ms: windows of fixed length, computed here (UTC or a
--                       fixed offset; minute, hour, day): floor((t + offset) / unit) * unit - offset
--   kind 3 (table)      quota, cost, m, 0, then m window boundaries (ms, increasing): windows sent by the
--                       gateway (months, zones with clock changes; tests send short synthetic ones)
--                     (d: IEEE doubles, exact for these integers)
--
-- Reply (integers): now (ms, Redis's clock), then per request in order:
--   decided         2k + admitted (1|0), k the number of its limits without room; then per limit the state
--                   it is left in (or was found in, if the request is rejected): bucket: micro-tokens, lag
--                   (ms from now until the time the bucket holds); quota: the count, its window's start
--                   and end (ms); then the positions (1-based) of the k limits without room. From these
--                   the gateway works out remaining, retry and reset with the reference's own arithmetic.
--   stale windows   -1, the limit's position, the instant its table does not cover (now, or the start of
--                   a later window a count is kept for): nothing was decided nor taken for that request;
--                   the gateway asks again with a table that covers it. Never a guess: a wrong window
--                   could over-admit.

local BUCKET_FORMAT, BUCKET_BYTES = '>I7I6', 13
local QUOTA_FORMAT, QUOTA_BYTES = '>I6I5', 11
local XP_FIELD = '_xp'
local KIND_BUCKET, KIND_FIXED = 1, 2
local DEFINITION_FORMAT = '>BBdddd'
-- Covers the difference between the script's TIME and the clock Redis expires keys by.
local EXPIRY_MARGIN_MILLIS = 2

local floor = math.floor
local unpack_struct, pack_struct = struct.unpack, struct.pack
local byte = string.byte

-- Redis's clock in ms, read once (as bucket_refill.lua's redis_now()): every limit of every request
-- of the batch is brought to the same instant.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)

-- The states, a key's one after the other: one HMGET per key, of its _xp and its states' fields
-- (straight from ARGV).
local state_key = { byte(ARGV[1], 1, -1) }
local nstates = #state_key
local current = {} -- state index -> its value now (as stored, then as admitted requests left it)
local firsts, lasts = {}, {} -- key index -> its first and last state index
local xps = {}     -- key index -> the expiry last set (_xp), if readable; WRONGTYPE: not a hash, ours to
                   -- replace on admission only
local WRONGTYPE = -1
local s = 1
while s <= nstates do
  local ki = state_key[s]
  local e = s
  while e < nstates and state_key[e + 1] == ki do
    e = e + 1
  end
  if firsts[ki] ~= nil then
    return redis.error_reply('multi_limit.lua: the states of a key must be sent together')
  end
  firsts[ki], lasts[ki] = s, e
  local got = redis.pcall('HMGET', KEYS[ki], XP_FIELD, unpack(ARGV, s + 1, e + 1))
  if got.err then
    xps[ki] = WRONGTYPE
  else
    local xp = tonumber(got[1])
    if xp ~= nil and xp == xp and xp >= 0 and xp ~= math.huge then
      xps[ki] = xp
    end
    for j = s, e do
      current[j] = got[j - s + 2]
    end
  end
  s = e + 1
end

-- The call's limit definitions (the requests of one plan share them), read once.
local DK, DS, D1, D2, D3, D4, DB = {}, {}, {}, {}, {}, {}, {}
for d = 1, #ARGV - nstates - 2 do
  local def = ARGV[nstates + 2 + d]
  local kind, shadow, p1, p2, p3, p4, pos = unpack_struct(DEFINITION_FORMAT, def)
  DK[d], DS[d], D1[d], D2[d], D3[d], D4[d] = kind, shadow == 1, p1, p2, p3, p4
  if kind ~= KIND_BUCKET and kind ~= KIND_FIXED then
    DB[d] = { unpack_struct('>' .. string.rep('d', p3), def, pos) }
  end
end

-- The requests' bytes, read at once (in slices the Lua stack can hold).
local requests = ARGV[nstates + 2]
local B
if #requests <= 4000 then
  B = { byte(requests, 1, -1) }
else
  B = {}
  for c = 1, #requests, 4000 do
    local slice = { byte(requests, c, c + 3999) }
    for j = 1, #slice do
      B[c + j - 1] = slice[j]
    end
  end
end

-- The window [start, stop) that holds t in a table of m boundaries; nil if none.
local function table_window(bounds, m, t)
  for j = 1, m - 1 do
    if bounds[j] <= t and t < bounds[j + 1] then
      return bounds[j], bounds[j + 1]
    end
  end
  return nil
end

local reply = { now }
local nreply = 1
-- State index -> the instant it matters until and the expiry it asks for, once an admitted
-- request changed it (then it is written).
local state_need, state_expiry = {}, {}
-- The limits of the request being decided, in arrays reused from request to request (index: the
-- limit's position in the request): no table per limit or per request.
local LS, LV, LN, LE = {}, {}, {}, {} -- state index, value to write, needed until, expiry asked
local LP, U1, U2 = {}, {}, {}          -- reply position of the limit's first value; its values if rejected
local roomless = {}

-- The answer for the request at `at` (n limits, answer from `head`, values written up to `r`) whose
-- limit i has no window for instant t: nothing decided, nothing taken; the values already written are
-- taken back (the reply ends at its first nil).
local function stale(at, n, head, r, i, t)
  reply[head], reply[head + 1], reply[head + 2] = -1, i, t
  for j = head + 3, r do
    reply[j] = nil
  end
  nreply = head + 2
  return at + 2 + 2 * n
end

-- One request: its limits worked out in order (a state charged twice sees the first charge's take),
-- kept only if every enforced limit has room. Returns where the next request's bytes start.
local function decide(at)
  local n, repeats = B[at], B[at + 1]
  local head = nreply + 1
  local r = head
  local k = 0
  local admitted = true
  for i = 1, n do
    local st, d = B[at + 2 * i], B[at + 2 * i + 1]
    LS[i] = st
    local value = current[st]
    if repeats == 1 then
      -- A state an earlier limit of this request charged is seen as that limit left it.
      for p = i - 1, 1, -1 do
        if LS[p] == st then
          value = LV[p]
          break
        end
      end
    end
    local kind = DK[d]
    local room
    LP[i] = r + 1
    if kind == KIND_BUCKET then
      local capacity, rate, cost, fill_millis = D1[d], D2[d], D3[d], D4[d]
      local tokens, stored_ts = capacity, now
      if value and #value == BUCKET_BYTES then
        tokens, stored_ts = unpack_struct(BUCKET_FORMAT, value)
      end
      -- bucket_refill.lua's steps: the time never moves back, bounded by one fill time.
      local ts
      tokens, ts = refill(tokens, stored_ts, capacity, rate, fill_millis, now)
      room = cost <= tokens
      local after = room and tokens - cost or tokens
      LV[i] = pack_struct(BUCKET_FORMAT, after, ts)
      -- Admitted, waits count from the time written; rejected, nothing is written and nothing
      -- refills before Redis's clock passes the stored time.
      reply[r + 1], reply[r + 2] = after, ts - now
      U1[i], U2[i] = tokens, (stored_ts > now and stored_ts or now) - now
      r = r + 2
      -- Needed until: at most one fill time after the refill (an upper bound, no division: the
      -- expiry is moved at most once a fill time more often than needed); the expiry asked: twice
      -- the fill time (as token_bucket.lua).
      LN[i], LE[i] = ts + fill_millis, ts + 2 * fill_millis
    else
      -- A calendar quota: the window holding now, except that a count kept for a later window
      -- (Redis's clock stepped back) keeps counting there; a count for an earlier window is dropped.
      local start, stop, unit, offset, bounds
      if kind == KIND_FIXED then
        -- Windows of fixed length (UTC or a fixed offset; minute, hour, day).
        unit, offset = D3[d], D4[d]
        start = floor((now + offset) / unit) * unit - offset
        stop = start + unit
      else
        -- A window table sent by the gateway.
        bounds = DB[d]
        start, stop = table_window(bounds, D3[d], now)
        if start == nil then
          return stale(at, n, head, r, i, now)
        end
      end
      local used = 0
      if value and #value == QUOTA_BYTES then
        local stored_start, stored_used = unpack_struct(QUOTA_FORMAT, value)
        if stored_start >= start then
          if kind == KIND_FIXED then
            start = floor((stored_start + offset) / unit) * unit - offset
            stop = start + unit
          else
            start, stop = table_window(bounds, D3[d], stored_start)
            if start == nil then
              return stale(at, n, head, r, i, stored_start)
            end
          end
          used = stored_used
        end
      end
      room = D2[d] <= D1[d] - used
      local after = room and used + D2[d] or used
      LV[i] = pack_struct(QUOTA_FORMAT, start, after)
      reply[r + 1], reply[r + 2], reply[r + 3] = after, start, stop
      U1[i] = used
      r = r + 3
      LN[i], LE[i] = stop, stop
    end
    if not room then
      k = k + 1
      roomless[k] = i
      admitted = admitted and DS[d]
    end
  end

  if admitted then
    for i = 1, n do
      local st = LS[i]
      current[st] = LV[i] -- in order: a state charged twice keeps its last value
      local need, expiry = LN[i], LE[i]
      local was = state_need[st]
      if was == nil or need > was then
        state_need[st] = need
      end
      was = state_expiry[st]
      if was == nil or expiry > was then
        state_expiry[st] = expiry
      end
    end
  else
    -- Nothing taken: each limit reported as found.
    for i = 1, n do
      local p = LP[i]
      reply[p] = U1[i]
      if DK[B[at + 2 * i + 1]] == KIND_BUCKET then
        reply[p + 1] = U2[i]
      end
    end
  end
  -- The head: how many limits had no room, and whether the request is admitted; their positions follow.
  reply[head] = 2 * k + (admitted and 1 or 0)
  for j = 1, k do
    reply[r + j] = roomless[j]
  end
  nreply = r + k
  return at + 2 + 2 * n
end

local at = 1
local nbytes = #B
while at <= nbytes do
  at = decide(at)
end

-- Write what admitted requests took: one HSET per key, and move the key's expiry only when the one
-- in place (_xp) could come before a state it holds stops mattering. The expiry is never shortened:
-- the key's other fields (limits of other requests) may need it. A batch sets it once, for the
-- latest need of its admitted requests: never earlier than the same requests one call each would.
for ki = 1, #KEYS do
  local first = firsts[ki]
  local args = nil
  local na = 0
  local key_need, key_expiry
  for st = first, lasts[ki] do
    local need = state_need[st]
    if need ~= nil then
      if args == nil then
        args, key_need, key_expiry = {}, need, state_expiry[st]
      else
        if need > key_need then
          key_need = need
        end
        if state_expiry[st] > key_expiry then
          key_expiry = state_expiry[st]
        end
      end
      args[na + 1], args[na + 2] = ARGV[1 + st], current[st]
      na = na + 2
    end
  end
  if args ~= nil then
    local key = KEYS[ki]
    local xp = xps[ki]
    if xp == WRONGTYPE then
      redis.call('DEL', key)
      xp = nil
    end
    if xp ~= nil and xp - EXPIRY_MARGIN_MILLIS >= key_need then
      redis.call('HSET', key, unpack(args))
    else
      local until_ms = key_expiry
      if until_ms < key_need + EXPIRY_MARGIN_MILLIS then
        until_ms = key_need + EXPIRY_MARGIN_MILLIS
      end
      if xp ~= nil and xp > until_ms then
        until_ms = xp
      end
      args[na + 1], args[na + 2] = XP_FIELD, until_ms
      redis.call('HSET', key, unpack(args))
      redis.call('PEXPIRE', key, until_ms - now)
    end
  end
end

return reply
