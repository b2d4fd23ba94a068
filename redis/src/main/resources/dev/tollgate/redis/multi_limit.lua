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
-- Arguments are few and packed, because parsing them was a large part of a call's cost:
-- KEYS              the batch's distinct state keys (rl:{tenant}:route, rl:{tenant}); one slot; at most 255
-- ARGV[1]           one byte per state (a distinct key and field of the batch): its key's index in KEYS
-- ARGV[1 + s]       state s's field (the limit's name), s = 1 .. S (S = #ARGV[1])
-- ARGV[S + 2r]      request r's struct format, and ARGV[S + 2r + 1] its data packed in that format:
--                     B n (its limits), then per limit, in the request's order:
--                     H state index, B kind (1 bucket, 2 fixed windows, 3 window table), B shadow (1|0), then
--   kind 1 (bucket)   d capacity (micro-tokens), d refill rate (micro-tokens per ms), d cost (micro-tokens),
--                     d fill time (ms, ceil(capacity / rate))
--   kind 2 (fixed)    d quota, d cost, d unit ms, d offset ms: windows of fixed length, computed here (UTC
--                     or a fixed offset; minute, hour, day): floor((t + offset) / unit) * unit - offset
--   kind 3 (table)    d quota, d cost, H m, then m window boundaries d (ms, increasing): windows sent by
--                     the gateway (months, zones with clock changes; tests send short synthetic ones)
--                   (d: an IEEE double, exact for these integers; the format is sent so that one
--                   struct.unpack reads a whole request)
--
-- Reply (integers), per request in order, 2 + 4n each; the state each limit is left in (or was found
-- in, if the request is rejected), from which the gateway works out remaining, retry and reset with
-- the reference's own arithmetic (fewer integers to build and send than the outcomes themselves):
--   decided         admitted (1|0), now (ms), then per limit: room (1|0), then
--                     bucket: micro-tokens, lag (ms from now until the time the bucket holds), 0
--                     quota:  the count, its window's start and end (ms)
--   stale windows   -1, now, the limit's index, the instant its table does not cover (now, or the
--                   start of a later window a count is kept for), then zeros: nothing was decided nor
--                   taken for that request; the gateway asks again with a table that covers it. Never a
--                   guess: a wrong window could over-admit.

local BUCKET_FORMAT, BUCKET_BYTES = '>I7I6', 13
local QUOTA_FORMAT, QUOTA_BYTES = '>I6I5', 11
local XP_FIELD = '_xp'
local KIND_BUCKET, KIND_FIXED, KIND_TABLE = 1, 2, 3
-- Covers the difference between the script's TIME and the clock Redis expires keys by.
local EXPIRY_MARGIN_MILLIS = 2

local floor, max = math.floor, math.max
local unpack_struct, pack_struct = struct.unpack, struct.pack

-- Redis's clock in ms, read once (as bucket_refill.lua's redis_now()): every limit of every request
-- of the batch is brought to the same instant.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)

-- The states: read every key once (its states' fields and its _xp), whatever the batch's size.
local state_key = { string.byte(ARGV[1], 1, -1) }
local nstates = #state_key
local key_states = {} -- key index -> its state indexes, in order
for s = 1, nstates do
  local ki = state_key[s]
  local list = key_states[ki]
  if list == nil then
    key_states[ki] = { s }
  else
    list[#list + 1] = s
  end
end
-- Garbage is what a call costs beyond its commands (every table and closure made here is made on every
-- call, and Lua's collector runs after calls), so tables are few: none per limit, none per request
-- but the unpacked arguments.
local current = {} -- state index -> its value now (as stored, then as admitted requests left it)
local xps = {}     -- key index -> the expiry last set (_xp), if readable; WRONGTYPE: not a hash, ours to
                   -- replace on admission only
local WRONGTYPE = -1
for ki, list in pairs(key_states) do
  local fields = { XP_FIELD }
  for j = 1, #list do
    fields[j + 1] = ARGV[1 + list[j]]
  end
  local reply = redis.pcall('HMGET', KEYS[ki], unpack(fields))
  if reply.err then
    xps[ki] = WRONGTYPE
  else
    local xp = tonumber(reply[1])
    if xp ~= nil and xp == xp and xp >= 0 and xp ~= math.huge then
      xps[ki] = xp
    end
    for j = 1, #list do
      current[list[j]] = reply[j + 1]
    end
  end
end

-- The limits of the request being decided, in one flat array reused from request to request: limit i
-- at o = 16 (i - 1), fields o + 1 .. o + 15:
--   1 state index, 2 kind, 3 shadow (boolean),
--   4 .. 7 parameters: bucket capacity, rate, cost, fill ms; fixed windows quota, cost, unit, offset;
--          table quota, cost; 8 a table's boundaries,
--   9 room (boolean), 10 the value to write,
--   11 .. 13 reported if admitted: bucket tokens, lag, 0; quota count, window start, window end,
--   14 .. 15 reported if not: bucket tokens, lag; quota count, window start.
local L = {}

-- The window [start, stop) of the limit at o that holds t; nil when its table does not cover t.
local function window_of(o, t)
  if L[o + 2] == KIND_FIXED then
    local unit, offset = L[o + 6], L[o + 7]
    local start = floor((t + offset) / unit) * unit - offset
    return start, start + unit
  end
  local b = L[o + 8]
  for j = 1, #b - 1 do
    if b[j] <= t and t < b[j + 1] then
      return b[j], b[j + 1]
    end
  end
  return nil
end

-- The token bucket at o brought to now, as bucket_refill.lua's refilled_bucket: its room, the value
-- to write, and (tokens, lag) as reported if admitted (charged) or not (uncharged).
local function bucket_step(o, value)
  local capacity, rate, cost, fill_millis = L[o + 4], L[o + 5], L[o + 6], L[o + 7]
  local tokens, stored_ts = capacity, now
  if type(value) == 'string' and #value == BUCKET_BYTES then
    tokens, stored_ts = unpack_struct(BUCKET_FORMAT, value)
  end
  -- bucket_refill.lua's steps: the time never moves back, bounded by one fill time.
  local ts
  tokens, ts = refill(tokens, stored_ts, capacity, rate, fill_millis, now)
  local room = cost <= tokens
  local after = room and tokens - cost or tokens
  L[o + 9] = room
  L[o + 10] = pack_struct(BUCKET_FORMAT, after, ts)
  -- Admitted, waits count from the time written; rejected, nothing is written and nothing refills
  -- before Redis's clock passes the stored time.
  L[o + 11], L[o + 12], L[o + 13] = after, ts - now, 0
  L[o + 14], L[o + 15] = tokens, max(stored_ts, now) - now
end

-- The calendar quota at o: the window holding now, except that a count kept for a later window
-- (Redis's clock stepped back) keeps counting there; a count for an earlier window is dropped.
-- Returns the instant the table does not cover, if any.
local function quota_step(o, value)
  local start, stop = window_of(o, now)
  if start == nil then
    return now
  end
  local used = 0
  if type(value) == 'string' and #value == QUOTA_BYTES then
    local stored_start, stored_used = unpack_struct(QUOTA_FORMAT, value)
    if stored_start >= start then
      local s, e = window_of(o, stored_start)
      if s == nil then
        return stored_start
      end
      start, stop, used = s, e, stored_used
    end
  end
  local cost = L[o + 5]
  local room = cost <= L[o + 4] - used
  local after = room and used + cost or used
  L[o + 9] = room
  L[o + 10] = pack_struct(QUOTA_FORMAT, start, after)
  L[o + 11], L[o + 12], L[o + 13] = after, start, stop
  L[o + 14], L[o + 15] = used, start
  return nil
end

-- One request: its limits read by one struct.unpack, worked out in order (a state charged twice
-- sees the first charge's take), kept only if admitted.
local reply = {}
local dirty = {} -- state index -> true: to write
-- Key index ki -> the latest instant one of its admitted states matters until; ki + 256 -> the
-- expiry its admitted states ask for.
local need = {}
local function decide(format, data)
  local v = { unpack_struct(format, data) }
  local n = v[1]
  local at = 2
  for o = 0, 16 * (n - 1), 16 do
    local kind = v[at + 1]
    L[o + 1], L[o + 2], L[o + 3] = v[at], kind, v[at + 2] == 1
    L[o + 4], L[o + 5], L[o + 6] = v[at + 3], v[at + 4], v[at + 5]
    if kind ~= KIND_TABLE then
      L[o + 7] = v[at + 6]
      at = at + 7
    else
      local m = v[at + 5]
      local bounds = {}
      for j = 1, m do
        bounds[j] = v[at + 5 + j]
      end
      L[o + 8] = bounds
      at = at + 6 + m
    end
  end

  local base = #reply
  local admitted = true
  for o = 0, 16 * (n - 1), 16 do
    local s = L[o + 1]
    -- A state an earlier limit of this request charged is seen as that limit left it.
    local value = nil
    for p = o - 16, 0, -16 do
      if L[p + 1] == s then
        value = L[p + 10]
        break
      end
    end
    if value == nil then
      value = current[s]
    end
    if L[o + 2] == KIND_BUCKET then
      bucket_step(o, value)
    else
      local uncovered = quota_step(o, value)
      if uncovered ~= nil then
        reply[base + 1], reply[base + 2], reply[base + 3], reply[base + 4] = -1, now, o / 16 + 1, uncovered
        for j = base + 5, base + 2 + 4 * n do
          reply[j] = 0
        end
        return
      end
    end
    admitted = admitted and (L[o + 9] or L[o + 3])
  end

  reply[base + 1], reply[base + 2] = admitted and 1 or 0, now
  at = base + 3
  if admitted then
    for o = 0, 16 * (n - 1), 16 do
      local s = L[o + 1]
      current[s] = L[o + 10] -- in order: a state charged twice keeps its last value
      dirty[s] = true
      local ki = state_key[s]
      -- Needed until: a bucket at most one fill time after its refill (an upper bound, no division:
      -- the expiry is moved at most once a fill time more often than needed), a quota its window's
      -- end; the expiry asked: twice the fill time (as token_bucket.lua), the window's end.
      local needed, expiry
      if L[o + 2] == KIND_BUCKET then
        needed = now + L[o + 12] + L[o + 7]
        expiry = needed + L[o + 7]
      else
        needed = L[o + 13]
        expiry = needed
      end
      local was = need[ki]
      if was == nil or needed > was then
        need[ki] = needed
      end
      was = need[ki + 256]
      if was == nil or expiry > was then
        need[ki + 256] = expiry
      end
      reply[at], reply[at + 1], reply[at + 2], reply[at + 3] = L[o + 9] and 1 or 0, L[o + 11], L[o + 12], L[o + 13]
      at = at + 4
    end
  else
    for o = 0, 16 * (n - 1), 16 do
      reply[at], reply[at + 1], reply[at + 2], reply[at + 3] = L[o + 9] and 1 or 0, L[o + 14], L[o + 15], L[o + 13]
      at = at + 4
    end
  end
end

for r = nstates + 2, #ARGV, 2 do
  decide(ARGV[r], ARGV[r + 1])
end

-- Write what admitted requests took: one HSET per key, and move the key's expiry only when the one
-- in place (_xp) could come before a state it holds stops mattering. The expiry is never shortened:
-- the key's other fields (limits of other requests) may need it. A batch sets it once, for the
-- latest need of its admitted requests: never earlier than the same requests one call each would.
for ki = 1, #KEYS do
  local key_need = need[ki]
  if key_need ~= nil then
    local key = KEYS[ki]
    local xp = xps[ki]
    if xp == WRONGTYPE then
      redis.call('DEL', key)
      xp = nil
    end
    local args = {}
    for _, s in ipairs(key_states[ki]) do
      if dirty[s] then
        args[#args + 1] = ARGV[1 + s]
        args[#args + 1] = current[s]
      end
    end
    if xp ~= nil and xp - EXPIRY_MARGIN_MILLIS >= key_need then
      redis.call('HSET', key, unpack(args))
    else
      local until_ms = max(need[ki + 256], key_need + EXPIRY_MARGIN_MILLIS)
      if xp ~= nil and xp > until_ms then
        until_ms = xp
      end
      args[#args + 1] = XP_FIELD
      args[#args + 1] = until_ms
      redis.call('HSET', key, unpack(args))
      redis.call('PEXPIRE', key, until_ms - now)
    end
  end
end

return reply
