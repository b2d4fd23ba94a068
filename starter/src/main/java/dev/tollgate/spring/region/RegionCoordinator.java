package dev.tollgate.spring.region;

import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RuleBook;
import dev.tollgate.core.SerialScheduler;
import dev.tollgate.core.region.DemandMeter;
import dev.tollgate.core.region.ReportFilter;
import dev.tollgate.core.region.ShareRebalancer;
import dev.tollgate.core.region.ShareTable;
import dev.tollgate.spring.postgres.ConnectionPolicy;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one instance does for the regions' shares, as short tasks of one injected
 * {@link SerialScheduler}, on one PostgreSQL connection of its own (not from the pool, opened under
 * the {@link ConnectionPolicy}):
 * <ul>
 *   <li><b>hears of new shares</b>: {@link #sharesChanged()} (the notification listener's
 *       subscriber to the rebalancer's channel), plus a check of the shares' version every interval
 *       as a safety net; new shares are read and swapped in at once. While PostgreSQL cannot be
 *       reached, the last shares read stay in force;</li>
 *   <li><b>reports its demand</b> every interval: the buckets of its last window that are tracked or
 *       near its region's limit ({@link ReportFilter}), in one transaction — never a write per
 *       request;</li>
 *   <li><b>runs the rebalancer</b> while it holds a session advisory lock on this connection: at most
 *       one instance fleet-wide does. When that instance dies, its session ends, PostgreSQL frees the
 *       lock, and another instance takes it at its next attempt (within an interval; a silently dead
 *       peer is detected by TCP keep-alives within about 25 s). The run's writes are made on this very
 *       session, so an instance that lost the lock cannot write shares any more.</li>
 * </ul>
 * Every interval and delay is measured on the scheduler's clock. {@link #stop()} gives up the
 * connection (and with it the lock); {@link #start()} after it starts afresh.
 *
 * <p>Connected to a read replica (PostgreSQL in recovery, which allows neither {@code LISTEN} nor
 * writes), it only reads the shares, every interval, as the replica has them: its region reports
 * nothing through it, and a region none of whose instances reports holds every share where it is.
 */
public final class RegionCoordinator implements AutoCloseable {

    /** The channel the rebalancer notifies when the shares change: subscribe {@link #sharesChanged()} to it. */
    public static final String SHARES_CHANNEL = RegionRepository.CHANNEL;

    private static final Logger log = LoggerFactory.getLogger(RegionCoordinator.class);

    private final ConnectionPolicy policy;
    private final DatabaseEndpoint endpoint;
    private final RegionRepository repository = new RegionRepository();
    private final CurrentShares shares;
    private final DemandMeter meter;
    private final ReportFilter reports;
    private final RuleBook regionalRules;
    private final RuleBook globalRules;
    private final IntSupplier regionInstances;
    private final String instanceId;
    private final ShareRebalancer rebalancer;
    private final Duration interval;
    private final Duration retryDelay;
    private final SerialScheduler scheduler;
    private final MonotonicClock clock;
    private final AtomicBoolean loadQueued = new AtomicBoolean();
    private volatile RebalancerRun run;

    /** Bumped by each start and stop: a task of an earlier start does nothing. */
    private volatile int generation;
    private volatile boolean running;
    // The scheduler's tasks only.
    private Connection connection;

    private volatile boolean connected;
    private volatile boolean leader;
    private volatile boolean standby;
    private volatile String lastError;
    private volatile Double lastRunAgeAtRead;
    private volatile long lastRunReadAtNanos;
    private volatile Set<String> silentRegions = Set.of();

    /**
     * What the coordinator works with.
     *
     * @param scheduler runs the coordinator's tasks one at a time, and measures its intervals
     */
    public record Parts(ConnectionPolicy policy, DatabaseEndpoint endpoint, CurrentShares shares, DemandMeter meter,
                        RuleBook regionalRules, RuleBook globalRules, IntSupplier regionInstances, String instanceId,
                        ShareRebalancer rebalancer, Duration interval, Duration retryDelay,
                        SerialScheduler scheduler) {
    }

    public RegionCoordinator(Parts parts) {
        this.policy = parts.policy();
        this.endpoint = parts.endpoint();
        this.shares = parts.shares();
        this.meter = parts.meter();
        this.reports = new ReportFilter(parts.rebalancer().settings().nearLimit());
        this.regionalRules = parts.regionalRules();
        this.globalRules = parts.globalRules();
        this.regionInstances = parts.regionInstances();
        this.instanceId = parts.instanceId();
        this.rebalancer = parts.rebalancer();
        this.interval = parts.interval();
        this.retryDelay = parts.retryDelay();
        this.scheduler = parts.scheduler();
        this.clock = scheduler.clock();
    }

    /** Where the rebalancer's runs are counted; before {@link #start()}. */
    public void measuredBy(RebalancerMetrics metrics) {
        this.run = new RebalancerRun(repository, rebalancer, globalRules, instanceId, interval, metrics, clock);
    }

    /** Connects (at once) and then works every interval, until {@link #stop()}. */
    public synchronized void start() {
        if (running) {
            return;
        }
        if (run == null) {
            throw new IllegalStateException("measuredBy(metrics) first");
        }
        running = true;
        int started = ++generation;
        scheduler.execute(() -> connect(started));
    }

    /**
     * Stops: the task that gives up the connection (and the rebalancer's lock), saying this instance
     * leaves, is queued at once; no other task of this start runs after it. {@link #start()} again
     * starts afresh.
     *
     * @return done once the connection is given up
     */
    public synchronized CompletableFuture<Void> stop() {
        if (!running) {
            return CompletableFuture.completedFuture(null);
        }
        running = false;
        generation++;
        CompletableFuture<Void> done = new CompletableFuture<>();
        scheduler.execute(() -> {
            disconnect(true);
            done.complete(null);
        });
        return done;
    }

    /**
     * The tasks a test (or a shutdown) waits for: true once the coordinator is stopped and holds no
     * connection.
     */
    public boolean isStopped() {
        return !running && !connected;
    }

    /** The rebalancer notified new shares (or may have, unheard): read them soon, on the coordinator's thread. */
    public void sharesChanged() {
        int current = generation;
        if (running && loadQueued.compareAndSet(false, true)) {
            scheduler.execute(() -> {
                loadQueued.set(false);
                if (current == generation && connection != null) {
                    work(current, () -> loadShares(connection));
                }
            });
        }
    }

    public boolean isConnected() {
        return connected;
    }

    /** Whether this instance's PostgreSQL is a read replica (it then only reads the shares). */
    public boolean isOnStandby() {
        return standby;
    }

    /** Whether this instance holds the rebalancer's lock (and so runs it). */
    public boolean isLeader() {
        return leader;
    }

    public String lastError() {
        return lastError;
    }

    public String instanceId() {
        return instanceId;
    }

    public Duration interval() {
        return interval;
    }

    /** Regions that had not reported at this instance's last run as the rebalancer (empty otherwise). */
    public Set<String> silentRegions() {
        return silentRegions;
    }

    /** Seconds since the rebalancer last ran anywhere, as of the last read; NaN if unknown. */
    public double lastRunAgeSeconds() {
        Double atRead = lastRunAgeAtRead;
        if (atRead == null) {
            return Double.NaN;
        }
        return atRead + (clock.nanoTime() - lastRunReadAtNanos) / 1e9;
    }

    /** A step on the connection that may fail: on failure, gives the connection up and retries later. */
    private interface Step {
        void run() throws SQLException;
    }

    /** Opens the connection, reads the shares, and runs the first leadership attempt. */
    private void connect(int started) {
        if (started != generation) {
            return;
        }
        work(started, () -> {
            connection = policy.connect(endpoint, "tollgate-region");
            boolean standby = repository.prepare(connection);
            if (standby != this.standby) {
                this.standby = standby;
                log.info(standby ? "Region {}: PostgreSQL is a read replica here: shares are read every interval;"
                        + " this instance neither reports its demand nor runs the rebalancer"
                        : "Region {}: PostgreSQL is the primary: shares, reports and the rebalancer's lock",
                        shares.region());
            }
            loadShares(connection);
            connected = true;
            if (lastError != null) {
                log.info("Region {}: PostgreSQL reachable again; shares and reports resume", shares.region());
            }
            lastError = null;
            meter.drain(); // what accumulated while disconnected spans an unknown time: not a window
            lead(connection);
            scheduler.schedule(() -> tick(started), interval);
        });
    }

    /** Every interval on a healthy connection: the report, leadership and the run, the shares' check. */
    private void tick(int started) {
        if (started != generation || connection == null) {
            return;
        }
        work(started, () -> {
            if (!standby) {
                report(connection);
            }
            lead(connection);
            loadShares(connection);
            scheduler.schedule(() -> tick(started), interval);
        });
    }

    /** Takes the rebalancer's lock if free, and runs the rebalancer while holding it. */
    private void lead(Connection c) throws SQLException {
        if (standby) {
            return;
        }
        if (!leader && repository.tryLock(c)) {
            leader = true;
            log.info("Region {}: this instance runs the rebalancer (holds its lock)", shares.region());
        }
        if (leader) {
            silentRegions = run.run(c, silentRegions);
        }
    }

    private void work(int started, Step step) {
        try {
            step.run();
        } catch (SQLException | RuntimeException e) {
            if (started != generation) {
                return; // stopped meanwhile: the stop's own task gives the connection up
            }
            boolean first = lastError == null;
            lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
            if (first) {
                log.warn("Region {}: PostgreSQL unreachable for shares and reports ({}); the last shares stay"
                        + " in force{}; retrying every {} ms", shares.region(), lastError,
                        leader ? " and this instance no longer runs the rebalancer" : "", retryDelay.toMillis());
            }
            disconnect(false);
            scheduler.schedule(() -> connect(started), retryDelay);
        }
    }

    /** Gives the connection up, and with it the lock; {@code leaving}: says so to the other instances first. */
    private void disconnect(boolean leaving) {
        Connection c = connection;
        connection = null;
        try {
            if (c != null) {
                if (leaving && connected && !standby) {
                    repository.leave(c, instanceId);
                }
                c.close();
            }
        } catch (SQLException | RuntimeException e) {
            log.debug("Region {}: closing the connection failed", shares.region(), e);
        } finally {
            connected = false;
            leader = false;
            silentRegions = Set.of();
        }
    }

    private void loadShares(Connection c) throws SQLException {
        RegionRepository.State state = repository.state(c);
        lastRunAgeAtRead = state.lastRunAgeSeconds();
        lastRunReadAtNanos = clock.nanoTime();
        if (state.sharesVersion() == shares.version()) {
            return;
        }
        RegionRepository.Loaded loaded = repository.loadShares(c, shares.get().defaults(),
                problem -> log.warn("Region {}: skipped {}", shares.region(), problem));
        ShareTable table = loaded.table();
        shares.replace(table, loaded.version());
        log.debug("Region {}: shares version {} ({} tracked buckets)", shares.region(), loaded.version(),
                table.stored().size());
    }

    private void report(Connection c) throws SQLException {
        DemandMeter.Window window = meter.drain();
        ShareTable table = shares.get();
        int instances = Math.max(1, regionInstances.getAsInt());
        List<RegionRepository.Report> selected = new ArrayList<>();
        window.demand().forEach((bucket, counts) -> {
            if (reports.worthReporting(counts, window.millis(), table.isTracked(bucket.tenant(), bucket.route()),
                    regionalRules.ruleFor(bucket.tenant(), bucket.route()), instances)) {
                selected.add(new RegionRepository.Report(bucket, counts));
            }
        });
        repository.publish(c, instanceId, shares.region(), selected, window.millis());
    }

    /** Stops for good: the connection is given up and the scheduler closed. */
    @Override
    public void close() {
        stop();
        scheduler.execute(scheduler::close);
    }
}
