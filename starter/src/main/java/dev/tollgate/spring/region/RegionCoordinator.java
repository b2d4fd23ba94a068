package dev.tollgate.spring.region;

import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RuleBook;
import dev.tollgate.core.region.DemandMeter;
import dev.tollgate.core.region.ReportFilter;
import dev.tollgate.core.region.ShareRebalancer;
import dev.tollgate.core.region.ShareTable;
import dev.tollgate.spring.directory.DatabaseEndpoint;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.function.IntSupplier;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one instance does for the regions' shares, on one thread and one PostgreSQL connection
 * of its own (not from the pool):
 * <ul>
 *   <li><b>hears of new shares</b>: {@code LISTEN} on the rebalancer's channel, plus a check of the
 *       shares' version every interval as a safety net; new shares are read and swapped in at once.
 *       While PostgreSQL cannot be reached, the last shares read stay in force;</li>
 *   <li><b>reports its demand</b> every interval: the buckets of its last window that are tracked or
 *       near its region's limit ({@link ReportFilter}), in one transaction — never a write per
 *       request;</li>
 *   <li><b>runs the rebalancer</b> while it holds a session advisory lock on this connection: at most
 *       one instance fleet-wide does. When that instance dies, its session ends, PostgreSQL frees the
 *       lock, and another instance takes it at its next attempt (within an interval; a silently dead
 *       peer is detected by TCP keep-alives within about 25 s). The run's writes are made on this very
 *       session, so an instance that lost the lock cannot write shares any more.</li>
 * </ul>
 *
 * <p>Connected to a read replica (PostgreSQL in recovery, which allows neither {@code LISTEN} nor
 * writes), it only reads the shares, every interval, as the replica has them: its region reports
 * nothing through it, and a region none of whose instances reports holds every share where it is.
 */
public final class RegionCoordinator implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RegionCoordinator.class);
    private static final int POLL_MILLIS = 250;

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
    private final MonotonicClock clock;
    private final Thread thread;
    private RebalancerRun run;

    private volatile boolean closed;
    private volatile boolean connected;
    private volatile boolean leader;
    private volatile boolean standby;
    private volatile String lastError;
    private volatile Double lastRunAgeAtRead;
    private volatile long lastRunReadAtNanos;
    private volatile Set<String> silentRegions = Set.of();

    /** What the coordinator works with. */
    public record Parts(DatabaseEndpoint endpoint, CurrentShares shares, DemandMeter meter, RuleBook regionalRules,
                        RuleBook globalRules, IntSupplier regionInstances, String instanceId,
                        ShareRebalancer rebalancer, Duration interval, Duration retryDelay, MonotonicClock clock) {
    }

    public RegionCoordinator(Parts parts) {
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
        this.clock = parts.clock();
        this.thread = new Thread(this::run, "tollgate-region");
        this.thread.setDaemon(true);
    }

    void start(RebalancerMetrics metrics) {
        this.run = new RebalancerRun(repository, rebalancer, globalRules, instanceId, interval, metrics, clock);
        thread.start();
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

    private void run() {
        while (!closed) {
            Properties props = endpoint.connectionProperties();
            props.setProperty("ApplicationName", "tollgate-region");
            // A database that stops answering (a network black hole) must not hang this thread, and
            // with it the shares' refresh and the role it reports, for the kernel's TCP timeouts.
            props.setProperty("connectTimeout", "10");
            props.setProperty("socketTimeout", "30");
            props.setProperty("tcpKeepAlive", "true");
            try (Connection c = DriverManager.getConnection(endpoint.url(), props)) {
                boolean standby = repository.prepare(c);
                if (standby != this.standby) {
                    this.standby = standby;
                    log.info(standby ? "Region {}: PostgreSQL is a read replica here: shares are read every interval;"
                            + " this instance neither reports its demand nor runs the rebalancer"
                            : "Region {}: PostgreSQL is the primary: shares, reports and the rebalancer's lock",
                            shares.region());
                }
                loadShares(c);
                connected = true;
                if (lastError != null) {
                    log.info("Region {}: PostgreSQL reachable again; shares and reports resume", shares.region());
                }
                lastError = null;
                serve(c);
                if (closed) {
                    repository.leave(c, instanceId);
                }
            } catch (SQLException | RuntimeException e) {
                if (!closed) {
                    boolean first = lastError == null;
                    lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
                    if (first) {
                        log.warn("Region {}: PostgreSQL unreachable for shares and reports ({}); the last shares stay"
                                + " in force{}; retrying every {} ms", shares.region(), lastError,
                                leader ? " and this instance no longer runs the rebalancer" : "", retryDelay.toMillis());
                    }
                }
            } finally {
                connected = false;
                leader = false;
                silentRegions = Set.of();
            }
            sleep(retryDelay);
        }
    }

    /** The loop on a healthy connection: notifications, reports, leadership, runs. */
    private void serve(Connection c) throws SQLException {
        PGConnection pg = c.unwrap(PGConnection.class);
        meter.drain(); // what accumulated while disconnected spans an unknown time: not a window
        long period = interval.toNanos();
        long nextReport = clock.nanoTime() + period;
        long nextCheck = nextReport;
        long nextRun = clock.nanoTime();
        while (!closed) {
            PGNotification[] notes = pg.getNotifications(POLL_MILLIS);
            long now = clock.nanoTime();
            if (now >= nextReport && !standby) {
                report(c);
                nextReport = now + period;
            }
            if (now >= nextRun && !standby) {
                if (!leader && repository.tryLock(c)) {
                    leader = true;
                    log.info("Region {}: this instance runs the rebalancer (holds its lock)", shares.region());
                }
                if (leader) {
                    silentRegions = run.run(c, silentRegions);
                }
                nextRun = now + period;
            }
            if ((notes != null && notes.length > 0) || now >= nextCheck) {
                loadShares(c);
                nextCheck = now + period;
            }
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

    private void sleep(Duration delay) {
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            thread.join(POLL_MILLIS * 4L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            thread.interrupt();
        }
    }
}
