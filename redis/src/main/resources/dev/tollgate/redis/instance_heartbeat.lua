-- One heartbeat of a gateway instance; returns how many instances are alive.
-- KEYS[1]  sorted set: member = instance id, score = Redis TIME (ms) of its last beat
-- ARGV[1]  this instance's id
-- ARGV[2]  time-to-live of a beat, ms: instances silent for longer are no longer counted
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
-- If every instance stops, the set goes too.
redis.call('PEXPIRE', KEYS[1], 2 * ttl)
return redis.call('ZCARD', KEYS[1])
