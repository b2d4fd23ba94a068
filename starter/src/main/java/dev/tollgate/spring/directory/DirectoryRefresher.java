package dev.tollgate.spring.directory;

import dev.tollgate.core.DaemonThreads;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleScope;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.LayeredMap;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the {@link Directory} in step with PostgreSQL, on one background thread.
 *
 * <ul>
 *   <li>At start: migrate (optionally) and load everything; if the database is unreachable, the
 *       gateway serves meanwhile (see {@link UnverifiedKeyPolicy}) and this retries every
 *       {@code retryDelay}.</li>
 *   <li>Then, on every change notification and every {@code refreshInterval}: read the change log
 *       since the last change seen and re-read only the rules and keys it names. The cost grows
 *       with the number of changes, not with the number of rules.</li>
 *   <li>Every {@code fullReloadInterval}, and whenever the change log no longer reaches back to the
 *       last change seen (this instance was cut off for longer than the retention): load
 *       everything again.</li>
 * </ul>
 *
 * <p>If the database goes away, the last snapshot stays in force and refreshes are retried.
 *
 * <p>Bound: a change is seen at the next refresh after its transaction commits, unless that
 * transaction committed after more than {@code changeLookback} newer changes had been read, in
 * which case it is seen at the next full reload.
 */
public final class DirectoryRefresher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DirectoryRefresher.class);

    private final DirectoryRepository repository;
    private final Directory directory;
    private final RateLimitRule defaultRule;
    private final Settings settings;
    private final ScheduledExecutorService executor;
    private final AtomicBoolean refreshQueued = new AtomicBoolean();
    private final Counter rejectedRows;
    private volatile Instant lastSuccess;
    private volatile String lastError;
    private final List<DirectorySeed> seeds;
    private volatile boolean migrated;
    private volatile boolean seeded;
    private Instant lastFullLoad;
    private volatile boolean startupDone;

    /** The refresher's timing (see {@code tollgate.directory.*}). */
    public record Settings(Duration refreshInterval, Duration fullReloadInterval, Duration retryDelay,
                           Duration changeRetention, int changeLookback, boolean migrate) {
    }

    public DirectoryRefresher(DirectoryRepository repository, Directory directory, RateLimitRule defaultRule,
                              Settings settings, MeterRegistry meters, List<DirectorySeed> seeds) {
        this.repository = repository;
        this.seeds = List.copyOf(seeds);
        this.directory = directory;
        this.defaultRule = defaultRule;
        this.settings = settings;
        this.executor = DaemonThreads.scheduler("tollgate-directory");
        this.rejectedRows = Counter.builder("tollgate.directory.rejected.rows")
                .description("Rule rows skipped because they break a rule's constraints")
                .register(meters);
        Gauge.builder("tollgate.directory.rules", directory, d -> d.snapshot().rules().size())
                .description("Rules held in memory (the default rule not counted)").register(meters);
        Gauge.builder("tollgate.directory.keys", directory, d -> d.snapshot().tenantByKey().size())
                .description("Active API keys held in memory").register(meters);
        Gauge.builder("tollgate.directory.snapshot.age", this, r -> r.snapshotAge().toMillis() / 1000.0)
                .description("Seconds since the in-memory rules were last confirmed against the database"
                        + " (NaN before the first load)")
                .baseUnit("seconds").register(meters);
    }

    /**
     * Starts loading in the background and waits up to {@code firstAttemptTimeout} for the first
     * attempt to end, so that an instance with a reachable database starts with its rules, and one
     * without does not hang.
     */
    public void start(Duration firstAttemptTimeout) {
        java.util.concurrent.CountDownLatch firstAttempt = new java.util.concurrent.CountDownLatch(1);
        executor.execute(() -> {
            try {
                refresh();
            } finally {
                firstAttempt.countDown();
            }
        });
        long period = settings.refreshInterval().toMillis();
        executor.scheduleWithFixedDelay(this::refresh, period, period, TimeUnit.MILLISECONDS);
        try {
            if (!firstAttempt.await(firstAttemptTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("Rules and keys not loaded within {} ms; starting with the default rule", firstAttemptTimeout.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            startupDone = true;
        }
    }

    /** Whether start-up has finished waiting for the first load (loaded or not). */
    public boolean isStartupDone() {
        return startupDone;
    }

    /** Asks for a refresh as soon as possible; requests made while one is queued are merged. */
    public void refreshSoon() {
        if (refreshQueued.compareAndSet(false, true)) {
            executor.execute(() -> {
                refreshQueued.set(false);
                refresh();
            });
        }
    }

    /** Whether the last attempt to read the database succeeded. */
    public boolean isDatabaseReachable() {
        return lastError == null && lastSuccess != null;
    }

    public String lastError() {
        return lastError;
    }

    /** Time since the snapshot was last confirmed against the database; {@code null}-safe. */
    public Duration snapshotAge() {
        Instant at = lastSuccess;
        return at == null ? Duration.ofMillis(Long.MAX_VALUE / 1000) : Duration.between(at, Instant.now());
    }

    public Instant lastSuccess() {
        return lastSuccess;
    }

    private void refresh() {
        try {
            DirectorySnapshot current = directory.snapshot();
            if (!current.loaded()) {
                if (settings.migrate() && !migrated) {
                    repository.migrate();
                    migrated = true;
                }
                if (!seeded) {
                    for (DirectorySeed seed : seeds) {
                        seed.seed(repository);
                    }
                    seeded = true;
                }
                fullLoad();
            } else if (Duration.between(lastFullLoad, Instant.now()).compareTo(settings.fullReloadInterval()) >= 0) {
                fullLoad();
                int pruned = repository.pruneChanges(settings.changeRetention());
                log.debug("Pruned {} change-log rows", pruned);
            } else {
                applyChanges(current);
            }
            if (lastError != null) {
                log.info("Rules and keys refreshed from PostgreSQL again");
            }
            lastError = null;
        } catch (Exception e) {
            boolean firstFailure = lastError == null;
            lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
            if (firstFailure) {
                log.warn("Cannot read rules and keys from PostgreSQL ({}); {}; retrying every {} ms",
                        lastError, directory.snapshot().loaded()
                                ? "the last snapshot stays in force"
                                : "serving with the default rule meanwhile",
                        settings.retryDelay().toMillis());
            }
            executor.schedule(this::refreshSoon, settings.retryDelay().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void fullLoad() throws Exception {
        long start = System.nanoTime();
        DirectoryRepository.FullLoad load = repository.loadAll(this::reject);
        RuleSet rules = RuleSet.of(defaultRule, load.rules());
        directory.replace(new DirectorySnapshot(true, rules, LayeredMap.of(load.tenantByKey()), load.cursor(),
                Instant.now()));
        lastFullLoad = Instant.now();
        lastSuccess = lastFullLoad;
        log.info("Loaded {} rules and {} API keys from PostgreSQL in {} ms", rules.size(), load.tenantByKey().size(),
                (System.nanoTime() - start) / 1_000_000);
    }

    private void applyChanges(DirectorySnapshot current) throws Exception {
        long oldest = repository.oldestChangeId();
        if (oldest > current.cursor() + 1 && current.cursor() > 0) {
            log.info("Change log no longer reaches change {} (oldest is {}): reloading everything",
                    current.cursor(), oldest);
            fullLoad();
            return;
        }
        List<DirectoryChange> changes = repository.changesAfter(Math.max(0, current.cursor() - settings.changeLookback()));
        Set<RuleScope> scopes = new HashSet<>();
        Set<String> keys = new HashSet<>();
        long cursor = current.cursor();
        for (DirectoryChange change : changes) {
            if (change.isRule()) {
                scopes.add(new RuleScope(change.tenant(), change.route()));
            } else {
                keys.add(change.keyHash());
            }
            cursor = Math.max(cursor, change.id());
        }
        // Re-reading rows already applied is harmless: each is read as it is now.
        directory.replace(new DirectorySnapshot(true,
                current.rules().withChanges(repository.currentRules(scopes, this::reject)),
                current.tenantByKey().with(repository.currentKeys(keys)),
                cursor, Instant.now()));
        lastSuccess = Instant.now();
    }

    private void reject(String problem) {
        rejectedRows.increment();
        log.warn("Skipped a malformed row: {}", problem);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
