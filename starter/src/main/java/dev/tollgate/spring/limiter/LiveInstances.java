package dev.tollgate.spring.limiter;

import dev.tollgate.core.DaemonThreads;
import dev.tollgate.redis.InstanceHeartbeat;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many gateway instances are alive, learnt from heartbeats in Redis. The last count read
 * stays in force while Redis is unreachable, which is exactly when the local fallback needs it;
 * the configured count is used only if no heartbeat ever succeeded.
 */
public final class LiveInstances implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LiveInstances.class);

    private final InstanceHeartbeat heartbeat;
    private final Duration interval;
    private final Duration ttl;
    private final int configured;
    private final String instanceId;
    private final ScheduledExecutorService scheduler;
    private volatile int lastKnown; // 0 = never known

    public LiveInstances(InstanceHeartbeat heartbeat, Duration interval, Duration ttl, int configured) {
        this.heartbeat = heartbeat;
        this.interval = interval;
        this.ttl = ttl;
        this.configured = configured;
        this.instanceId = ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID();
        this.scheduler = DaemonThreads.scheduler("tollgate-heartbeat");
    }

    public void start() {
        scheduler.scheduleWithFixedDelay(this::beat, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The instance count the fallback divides by: last heard from Redis, else configured. */
    public int count() {
        int known = lastKnown;
        return known > 0 ? known : configured;
    }

    /** Whether {@link #count()} comes from heartbeats rather than configuration. */
    public boolean isLearnt() {
        return lastKnown > 0;
    }

    public String instanceId() {
        return instanceId;
    }

    /** One heartbeat now; waits for it at most one interval. For start-up and tests. */
    public void beatNow() {
        beat();
    }

    private void beat() {
        try {
            Long live = heartbeat.beat(instanceId, ttl).toCompletableFuture().get(interval.toMillis(), TimeUnit.MILLISECONDS);
            if (live != null && live > 0) {
                int count = (int) Math.min(Integer.MAX_VALUE, live);
                if (count != lastKnown) {
                    log.info("Live gateway instances: {}", count);
                }
                lastKnown = count;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // Redis unreachable: keep the last count, which is what the fallback should use.
            log.debug("Heartbeat failed; keeping {} live instances", count(), e);
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            heartbeat.leave(instanceId).toCompletableFuture().get(500, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.debug("Could not remove this instance from the live set; it expires by itself", e);
        }
    }
}
