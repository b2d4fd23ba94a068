package dev.tollgate.spring.autoconfigure;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Ends Tollgate's Redis work at shutdown, in order: leases given back, this instance's heartbeat
 * taken off, then the connections closed. It runs after the web server has drained its requests and
 * before Spring stops Reactor Netty's event loops, which Tollgate's connections share: left to the
 * beans' destroy methods, the give-backs and the heartbeat removal would find those loops (and so
 * the connections) already gone. Each step is also its bean's destroy method and runs once.
 */
final class RedisWorkShutdown implements SmartLifecycle {

    /**
     * Below the web server's graceful shutdown and start/stop phases (close to
     * {@link SmartLifecycle#DEFAULT_PHASE}), above {@code ReactorResourceFactory}'s phase 0:
     * Spring stops higher phases first.
     */
    static final int PHASE = 1 << 20;

    private static final Logger log = LoggerFactory.getLogger(RedisWorkShutdown.class);

    private final List<AutoCloseable> inOrder;
    private volatile boolean running;

    RedisWorkShutdown(List<AutoCloseable> inOrder) {
        this.inOrder = List.copyOf(inOrder);
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        for (AutoCloseable step : inOrder) {
            try {
                step.close();
            } catch (Exception e) {
                log.warn("Closing {} at shutdown failed: {}", step.getClass().getSimpleName(), e.toString());
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
