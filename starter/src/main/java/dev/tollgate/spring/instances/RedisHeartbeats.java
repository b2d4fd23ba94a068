package dev.tollgate.spring.instances;

import dev.tollgate.redis.InstanceHeartbeat;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Heartbeats in Redis (the sorted set {@code tollgate:instances}, scored by Redis's own clock). */
public final class RedisHeartbeats implements HeartbeatStore {

    private final InstanceHeartbeat heartbeat;
    private final Duration ttl;
    private final Duration timeout;

    /**
     * @param ttl     an instance silent for this long is no longer counted
     * @param timeout longest a beat waits for Redis
     */
    public RedisHeartbeats(InstanceHeartbeat heartbeat, Duration ttl, Duration timeout) {
        this.heartbeat = heartbeat;
        this.ttl = ttl;
        this.timeout = timeout;
    }

    @Override
    public String name() {
        return "redis-heartbeat";
    }

    @Override
    public int beat(String instanceId) throws Exception {
        Long live = heartbeat.beat(instanceId, ttl).toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (live == null || live < 1) {
            throw new IllegalStateException("Redis counted " + live + " live instances after this one's beat");
        }
        return (int) Math.min(Integer.MAX_VALUE, live);
    }

    @Override
    public void leave(String instanceId) {
        try {
            heartbeat.leave(instanceId).toCompletableFuture().get(500, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // It expires by itself after the time-to-live.
        }
    }
}
