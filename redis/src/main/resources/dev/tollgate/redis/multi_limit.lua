-- Every limit of a request, decided at once and all or nothing: token buckets and
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
-- ARGV[1]             bytes: S, the number of states (a distinct key and field of the batch, at most
--                     255); per state its key's index in KEYS, a key's states one after the other (one
--                     HMGET per key reads them); then the requests: per request n (its limits), repeats
--                     (1 if a state is charged twice, else 0), then per limit, in the request's order,
--                     its state and its definition
-- ARGV[1 + s]         state s's field (the limit's name), s = 1 .. S
-- ARGV[S + 2]         the definitions' struct format: '>' and 'BBdddd' per definition (at most 255)
-- ARGV[S + 3]         the definitions (requests of one plan share them), read by one struct.unpack: kind
--                     (1 bucket, 2 fixed windows, 3 window table), shadow (1|0), then four doubles (exact
--                     for these integers):
--   kind 1 (bucket)     capacity (micro-tokens), refill rate (micro-tokens per ms), cost (micro-tokens),
--                       fill time (ms, ceil(capacity / rate))
--   kind 2 (fixed)      quota, cost, unit ms, offset ms: windows of fixed length, computed here (UTC or a
--                       fixed offset; minute, hour, day): floor((t + offset) / unit) * unit - offset
--   kind 3 (table)      quota, cost, m, t: windows sent by the gateway (months, zones with clock changes;
--                       tests send short synthetic ones), m boundaries in ARGV[S + 3 + t]
-- ARGV[S + 3 + t]     window table t: its boundaries, doubles (ms, increasing), read when first used
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
-- Covers the difference between the script's TIME and the clock Redis expires keys by.
local EXPIRY_MARGIN_MILLIS = 2

-- Globals read more than once, as locals: a global is a table lookup by name on every use.
local ARGV, KEYS = ARGV, KEYS
local tonumber = tonumber
local floor = math.floor
local unpack_struct, pack_struct = struct.unpack, struct.pack
local byte = string.byte

-- Redis's clock in ms, read once (as bucket_hash.lua's redis_now()): every limit of every request
-- of the batch is brought to the same instant.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)

-- A call's fixed cost counts as much as its decisions' (most calls carry a few requests): every table
-- and closure made here is made on every call, so there are few of either; each table below holds
-- several values per index, at fixed offsets, and the requests are decided in the main chunk.
-- The tables filled one index at a time are made with room for a request of up to four limits (a
-- constructor of nils sizes a table's array part; Lua 5.1 has no other way): a table grown from empty
-- is rebuilt at every power of two, which cost 13 K instructions of a three-limit decision's 142 K
-- (MultiLimitRedisCostBench with tollgate.bench.instructions). Sized to each call instead, with
-- { unpack({}, 1, n) }, they cost more than they saved, at batch 1 and 8 alike.

-- The states, a key's one after the other: one HMGET per key, of its _xp and its states' fields
-- (straight from ARGV). current: state index -> its value now (as stored, then as admitted requests
-- left it). K: key index ki -> at 3ki - 2 its first state, 3ki - 1 its last, 3ki the expiry last set
-- (_xp) if readable (WRONGTYPE: not a hash, ours to replace on admission only).
-- B: ARGV[1]'s bytes (the states' keys, then the requests), read at once, in slices the Lua stack can hold.
local B
local bytes = ARGV[1]
if #bytes <= 4000 then
  B = { byte(bytes, 1, -1) }
else
  B = {}
  for c = 1, #bytes, 4000 do
    local slice = { byte(bytes, c, c + 3999) }
    for j = 1, #slice do
      B[c + j - 1] = slice[j]
    end
  end
end
local nstates = B[1]
local current = { nil, nil, nil, nil, nil, nil, nil, nil }
local K = { nil, nil, nil, nil, nil, nil }
local WRONGTYPE = -1
local s = 1
while s <= nstates do
  local ki = B[1 + s]
  local e = s
  while e < nstates and B[2 + e] == ki do
    e = e + 1
  end
  if K[3 * ki - 2] ~= nil then
    return redis.error_reply('multi_limit.lua: the states of a key must be sent together')
  end
  K[3 * ki - 2], K[3 * ki - 1] = s, e
  local got = redis.pcall('HMGET', KEYS[ki], XP_FIELD, unpack(ARGV, s + 1, e + 1))
  if got.err then
    K[3 * ki] = WRONGTYPE
  else
    local xp = tonumber(got[1])
    if xp ~= nil and xp == xp and xp >= 0 and xp ~= math.huge then
      K[3 * ki] = xp
    end
    for j = s, e do
      current[j] = got[j - s + 2]
    end
  end
  s = e + 1
end

-- The call's limit definitions (the requests of one plan share them), read at once: definition d at
-- 6d - 5 .. 6d: kind, shadow (1|0), four parameters. A window table's boundaries are read when used.
local D = { unpack_struct(ARGV[nstates + 2], ARGV[nstates + 3]) }
-- Window tables follow the definitions in ARGV only when a quota needs one; the two functions that
-- read them are made only then (a function a script defines is a new closure on every call).
local window_table, table_window
if #ARGV > nstates + 3 then
  local DB = {}
  window_table = function(d)
    local bounds = DB[d]
    if bounds == nil then
      bounds = { unpack_struct('>' .. string.rep('d', D[6 * d - 1]), ARGV[nstates + 3 + D[6 * d]]) }
      DB[d] = bounds
    end
    return bounds
  end

  -- The window [start, stop) that holds t in a table of m boundaries; nil if none.
  table_window = function(bounds, m, t)
    for j = 1, m - 1 do
      if bounds[j] <= t and t < bounds[j + 1] then
        return bounds[j], bounds[j + 1]
      end
    end
    return nil
  end
end

local reply = { now, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil }
local nreply = 1
-- N: state index st -> at 2st - 1 the instant it matters until, at 2st the expiry it asks for, once an
-- admitted request changed it (then it is written).
local N = { nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil }
-- L: the limits of the request being decided, reused from request to request: limit i at 4i - 3 ..
-- 4i: its state, the value it leaves it in, the instant that matters until, the expiry it asks for.
local L = { nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil }
local roomless = nil

-- The requests, one after the other: each one's limits worked out in order (a state charged twice sees
-- the first charge's take), kept only if every enforced limit has room.
local at = nstates + 2
local nbytes = #B
while at <= nbytes do
  local n, repeats = B[at], B[at + 1]
  local head = nreply + 1
  local r = head
  local k = 0
  local admitted = true
  local stale_limit, stale_at = nil, nil
  for i = 1, n do
    local st, d = B[at + 2 * i], B[at + 2 * i + 1]
    local o = 4 * i - 4
    L[o + 1] = st
    local value = current[st]
    if repeats == 1 then
      -- A state an earlier limit of this request charged is seen as that limit left it.
      for p = o - 4, 0, -4 do
        if L[p + 1] == st then
          value = L[p + 2]
          break
        end
      end
    end
    local dd = 6 * d - 6
    local kind = D[dd + 1]
    local room
    if kind == KIND_BUCKET then
      local capacity, rate, cost, fill_millis = D[dd + 3], D[dd + 4], D[dd + 5], D[dd + 6]
      local tokens, stored_ts = capacity, now
      if value and #value == BUCKET_BYTES then
        tokens, stored_ts = unpack_struct(BUCKET_FORMAT, value)
      end
      -- bucket_refill.lua's steps: the time never moves back, bounded by one fill time.
      local ts
      tokens, ts = refill(tokens, stored_ts, capacity, rate, fill_millis, now)
      room = cost <= tokens
      local after = room and tokens - cost or tokens
      -- Admitted, waits count from the time written (rejected: see below).
      reply[r + 1], reply[r + 2] = after, ts - now
      r = r + 2
      -- Needed until: at most one fill time after the refill (an upper bound, no division: the
      -- expiry is moved at most once a fill time more often than needed); the expiry asked: twice
      -- the fill time (as token_bucket.lua).
      L[o + 2], L[o + 3], L[o + 4] = pack_struct(BUCKET_FORMAT, after, ts), ts + fill_millis, ts + 2 * fill_millis
    else
      -- A calendar quota: the window holding now, except that a count kept for a later window
      -- (Redis's clock stepped back) keeps counting there; a count for an earlier window is dropped.
      local start, stop, unit, offset, bounds
      if kind == KIND_FIXED then
        -- Windows of fixed length (UTC or a fixed offset; minute, hour, day).
        unit, offset = D[dd + 5], D[dd + 6]
        start = floor((now + offset) / unit) * unit - offset
        stop = start + unit
      else
        -- A window table sent by the gateway.
        bounds = window_table(d)
        start, stop = table_window(bounds, D[dd + 5], now)
        if start == nil then
          stale_limit, stale_at = i, now
          break
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
            start, stop = table_window(bounds, D[dd + 5], stored_start)
            if start == nil then
              stale_limit, stale_at = i, stored_start
              break
            end
          end
          used = stored_used
        end
      end
      local quota, cost = D[dd + 3], D[dd + 4]
      room = cost <= quota - used
      local after = room and used + cost or used
      reply[r + 1], reply[r + 2], reply[r + 3] = after, start, stop
      r = r + 3
      L[o + 2], L[o + 3], L[o + 4] = pack_struct(QUOTA_FORMAT, start, after), stop, stop
    end
    if not room then
      k = k + 1
      roomless = roomless or {}
      roomless[k] = i
      admitted = admitted and D[dd + 2] == 1
    end
  end

  if stale_limit ~= nil then
    -- Limit stale_limit has no window for stale_at: nothing decided, nothing taken; the values
    -- already written are taken back (the reply ends at its first nil).
    reply[head], reply[head + 1], reply[head + 2] = -1, stale_limit, stale_at
    for j = head + 3, r do
      reply[j] = nil
    end
    nreply = head + 2
  else
    if admitted then
      for o = 0, 4 * n - 4, 4 do
        local st = L[o + 1]
        current[st] = L[o + 2] -- in order: a state charged twice keeps its last value
        local need, expiry = L[o + 3], L[o + 4]
        if (N[2 * st - 1] or 0) < need then
          N[2 * st - 1] = need
        end
        if (N[2 * st] or 0) < expiry then
          N[2 * st] = expiry
        end
      end
    else
      -- Nothing taken: each limit reported as found, worked out again from what it saw (rejections
      -- are rarer than admissions, which do not pay for keeping it): a bucket's tokens before the
      -- take and the wait before anything refills (Redis's clock may be behind the stored time), a
      -- quota's count before the take.
      local p = head + 1
      for i = 1, n do
        local st, d = B[at + 2 * i], B[at + 2 * i + 1]
        local dd = 6 * d - 6
        local roomy = true
        for j = 1, k do
          if roomless[j] == i then
            roomy = false
          end
        end
        if D[dd + 1] == KIND_BUCKET then
          local value = current[st]
          if repeats == 1 then
            for q = 4 * i - 8, 0, -4 do
              if L[q + 1] == st then
                value = L[q + 2]
                break
              end
            end
          end
          local stored_ts = now
          if value and #value == BUCKET_BYTES then
            local _
            _, stored_ts = unpack_struct(BUCKET_FORMAT, value)
          end
          if roomy then
            reply[p] = reply[p] + D[dd + 5]
          end
          reply[p + 1] = (stored_ts > now and stored_ts or now) - now
          p = p + 2
        else
          if roomy then
            reply[p] = reply[p] - D[dd + 4]
          end
          p = p + 3
        end
      end
    end
    -- The head: how many limits had no room, and whether the request is admitted; their positions follow.
    reply[head] = 2 * k + (admitted and 1 or 0)
    for j = 1, k do
      reply[r + j] = roomless[j]
    end
    nreply = r + k
  end
  at = at + 2 + 2 * n
end

-- Write what admitted requests took: one HSET per key, and move the key's expiry only when the one
-- in place (_xp) could come before a state it holds stops mattering. The expiry is never shortened:
-- the key's other fields (limits of other requests) may need it. A batch sets it once, for the
-- latest need of its admitted requests: never earlier than the same requests one call each would.
-- The fields written and their values: in locals for up to three (one request's key, mostly), in a
-- table beyond.
for ki = 1, #KEYS do
  local na = 0
  local f1, v1, f2, v2, f3, v3, args
  local key_need, key_expiry
  for st = K[3 * ki - 2], K[3 * ki - 1] do
    local need = N[2 * st - 1]
    if need ~= nil then
      local expiry = N[2 * st]
      if na == 0 then
        key_need, key_expiry = need, expiry
        f1, v1 = ARGV[1 + st], current[st]
      else
        if need > key_need then
          key_need = need
        end
        if expiry > key_expiry then
          key_expiry = expiry
        end
        if na == 1 then
          f2, v2 = ARGV[1 + st], current[st]
        elseif na == 2 then
          f3, v3 = ARGV[1 + st], current[st]
        else
          if na == 3 then
            args = { f1, v1, f2, v2, f3, v3 }
          end
          args[2 * na + 1], args[2 * na + 2] = ARGV[1 + st], current[st]
        end
      end
      na = na + 1
    end
  end
  if na > 0 then
    local key = KEYS[ki]
    local xp = K[3 * ki]
    if xp == WRONGTYPE then
      redis.call('DEL', key)
      xp = nil
    end
    local until_ms = nil
    if xp == nil or xp - EXPIRY_MARGIN_MILLIS < key_need then
      until_ms = key_expiry
      if until_ms < key_need + EXPIRY_MARGIN_MILLIS then
        until_ms = key_need + EXPIRY_MARGIN_MILLIS
      end
      if xp ~= nil and xp > until_ms then
        until_ms = xp
      end
    end
    if na > 3 then
      if until_ms ~= nil then
        args[2 * na + 1], args[2 * na + 2] = XP_FIELD, until_ms
      end
      redis.call('HSET', key, unpack(args))
    elseif until_ms ~= nil then
      if na == 1 then
        redis.call('HSET', key, f1, v1, XP_FIELD, until_ms)
      elseif na == 2 then
        redis.call('HSET', key, f1, v1, f2, v2, XP_FIELD, until_ms)
      else
        redis.call('HSET', key, f1, v1, f2, v2, f3, v3, XP_FIELD, until_ms)
      end
    elseif na == 1 then
      redis.call('HSET', key, f1, v1)
    elseif na == 2 then
      redis.call('HSET', key, f1, v1, f2, v2)
    else
      redis.call('HSET', key, f1, v1, f2, v2, f3, v3)
    end
    if until_ms ~= nil then
      redis.call('PEXPIRE', key, until_ms - now)
    end
  end
end

return reply
