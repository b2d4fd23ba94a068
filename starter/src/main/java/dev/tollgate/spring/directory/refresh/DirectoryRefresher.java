package dev.tollgate.spring.directory.refresh;

import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.SerialScheduler;
import dev.tollgate.spring.directory.Directory;
import dev.tollgate.spring.directory.DirectorySnapshot;
import dev.tollgate.spring.directory.database.ChangeLogCatchUp;
import dev.tollgate.spring.directory.database.ChangeLogFollower;
import dev.tollgate.spring.directory.database.ChangeLogPruning;
import dev.tollgate.spring.directory.database.DatabasePreparation;
import dev.tollgate.spring.directory.database.DirectoryLoader;
import dev.tollgate.spring.directory.database.DirectoryRepository;
import dev.tollgate.spring.directory.database.DirectorySeed;
import dev.tollgate.spring.directory.database.MalformedRows;
import dev.tollgate.spring.directory.snapshot.SnapshotFile;
import dev.tollgate.spring.directory.snapshot.SnapshotSaver;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the {@link Directory} in step with PostgreSQL. It decides when to refresh and which step to
 * take, one step at a time on its own {@link SerialScheduler}; the steps are done by
 * {@link DatabasePreparation}, {@link DirectoryLoader}, {@link ChangeLogCatchUp} and
 * {@link ChangeLogPruning}, their outcome is kept in {@link RefreshStatus}, and each new snapshot is
 * saved by the {@link SnapshotSaver}.
 *
 * <p>When: at {@link #start()}; whenever {@link #refreshSoon()} is called (a change notification, see
 * there); every {@code refreshInterval} (the poll, a safety net for missed notifications); and
 * {@code retryDelay} after a failure.
 *
 * <p>Which step:
 * <ul>
 *   <li>Nothing read from the database yet by this process: migrate and write the initial data ({@link DatabasePreparation}),
 *       then load everything.</li>
 *   <li>{@code fullReloadInterval} since the last full load: load everything, then prune the change log.</li>
 *   <li>Otherwise: catch up with the change log; load everything if it no longer reaches back to the
 *       last change seen.</li>
 * </ul>
 * If the database cannot be read, what is in memory stays in force; if nothing is, the snapshot
 * saved on disk by an earlier run is restored (once), so the instance checks API keys and applies
 * each tenant's rules until PostgreSQL answers; without one the default rule applies (see
 * {@link dev.tollgate.spring.settings.UnverifiedKeyPolicy UnverifiedKeyPolicy}).
 *
 * <p>Bound: a change is seen at the first refresh after its transaction commits, unless that
 * transaction committed after more than {@code changeLookback} newer changes had been read, in
 * which case it is seen at the next full load. Intervals are measured on the scheduler's
 * {@link MonotonicClock}.
 */
public final class DirectoryRefresher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DirectoryRefresher.class);

    /** The channel the change log's trigger notifies ({@code V2__keys_cost_and_change_log.sql}). */
    public static final String CHANGES_CHANNEL = "tollgate_directory";

    /** The refresher's timing and steps (see {@code tollgate.directory.*}). */
    public record Settings(Duration refreshInterval, Duration fullReloadInterval, Duration retryDelay,
                           Duration changeRetention, int changeLookback, boolean migrate) {
    }

    private final Directory directory;
    private final Settings settings;
    private final SerialScheduler scheduler;
    private final MonotonicClock clock;
    private final DatabasePreparation preparation;
    private final DirectoryLoader loader;
    private final ChangeLogCatchUp catchUp;
    private final ChangeLogPruning pruning;
    private final RefreshStatus status;
    private final Optional<SnapshotFile> snapshotFile;
    private final SerialScheduler snapshotWriter;
    private final Optional<SnapshotSaver> saver;
    private final AtomicBoolean refreshQueued = new AtomicBoolean();
    private volatile boolean started;
    private final CountDownLatch firstAttempt = new CountDownLatch(1);
    // Touched on the scheduler's thread only.
    private boolean readFromDatabase;
    private long lastFullLoadNanos;
    private boolean savedSnapshotTried;
    private boolean loadedAll;

    /**
     * @param directory    holds the snapshot in force; its initial one gives the default rule
     * @param snapshotFile where snapshots are saved and, at start without a database, restored from; null for none
     * @param scheduler    runs the refreshes, and measures the intervals
     * @param snapshotWriter writes the snapshots to {@code snapshotFile}, off the refreshes' thread; null
     *                       without a file. Closed with the refresher
     */
    public DirectoryRefresher(DirectoryRepository repository, Directory directory, Settings settings,
                              MeterRegistry meters, List<DirectorySeed> seeds, List<ChangeLogFollower> followers,
                              SnapshotFile snapshotFile, SerialScheduler scheduler, SerialScheduler snapshotWriter) {
        if (snapshotFile != null && snapshotWriter == null) {
            throw new IllegalArgumentException("a snapshot file needs a scheduler to write it");
        }
        this.directory = directory;
        this.settings = settings;
        this.scheduler = scheduler;
        this.clock = scheduler.clock();
        MalformedRows malformedRows = new MalformedRows(meters);
        this.preparation = new DatabasePreparation(repository, settings.migrate(), seeds);
        this.loader = new DirectoryLoader(repository, directory.snapshot().rules().defaultRule(),
                directory.snapshot().limits().defaultPlanName(), malformedRows,
                followers, clock);
        this.catchUp = new ChangeLogCatchUp(repository, settings.changeLookback(), malformedRows, followers);
        this.pruning = new ChangeLogPruning(repository, settings.changeRetention());
        this.status = new RefreshStatus(clock);
        this.snapshotFile = Optional.ofNullable(snapshotFile);
        this.snapshotWriter = snapshotWriter;
        this.saver = this.snapshotFile.map(file -> new SnapshotSaver(file, snapshotWriter::execute));
        DirectoryGauges.register(meters, directory, status);
    }

    /**
     * Whether Tollgate's tables exist yet (this process migrated them, or migrations are the
     * operator's): until then, other users of the database (the heartbeats) wait instead of failing.
     */
    public boolean schemaReady() {
        return preparation.schemaReady();
    }

    /** Starts refreshing: the first attempt at once, then the poll every {@code refreshInterval}. */
    public void start() {
        started = true;
        scheduler.execute(() -> {
            try {
                refresh();
            } finally {
                firstAttempt.countDown();
            }
        });
        scheduler.schedule(this::poll, settings.refreshInterval());
    }

    /**
     * Waits up to {@code timeout} for the first attempt to end, so that an instance with a reachable
     * database starts with its rules, and one without does not hang; start-up is done after it.
     */
    public void awaitFirstAttempt(Duration timeout) {
        try {
            if (!firstAttempt.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                log.warn("Rules and keys not loaded within {} ms; starting without them", timeout.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            status.startupDone();
        }
    }

    /**
     * The one place where "the directory may have changed" arrives: a change notification
     * ({@link dev.tollgate.spring.postgres.NotificationListener NotificationListener}), the listener (re)connecting after it may have missed some, an admin
     * write committed. Asks for a refresh as soon as possible; requests made while one is queued are
     * merged into it.
     */
    public void refreshSoon() {
        // Before start() the first attempt is still to come, and it reads everything (the listener
        // starts a phase earlier and signals when it connects).
        if (started && refreshQueued.compareAndSet(false, true)) {
            scheduler.execute(() -> {
                refreshQueued.set(false);
                refresh();
            });
        }
    }

    public RefreshStatus status() {
        return status;
    }

    /** Where snapshots are saved, if anywhere. */
    public Optional<SnapshotFile> snapshotFile() {
        return snapshotFile;
    }

    private void poll() {
        try {
            refresh();
        } finally {
            scheduler.schedule(this::poll, settings.refreshInterval());
        }
    }

    private void refresh() {
        try {
            DirectorySnapshot current = directory.snapshot();
            loadedAll = false;
            DirectorySnapshot next = nextSnapshot(current);
            directory.replace(next);
            // Saved after every full load (so at least every full-reload interval) and every change.
            if (loadedAll || next.cursor() != current.cursor()) {
                saver.ifPresent(s -> s.save(next));
            }
            if (status.lastError() != null) {
                log.info("Rules and keys refreshed from PostgreSQL again");
            }
            status.succeeded();
        } catch (Exception e) {
            boolean firstFailure = status.failed(e);
            if (!directory.snapshot().loaded() && !savedSnapshotTried) {
                savedSnapshotTried = true;
                restoreSavedSnapshot();
            }
            if (firstFailure) {
                log.warn("Cannot read rules and keys from PostgreSQL ({}); {}; retrying every {} ms",
                        status.lastError(), directory.snapshot().loaded()
                                ? "the " + (directory.snapshot().origin() == DirectorySnapshot.Origin.SAVED_FILE
                                        ? "saved" : "last") + " snapshot stays in force"
                                : "serving with the default rule meanwhile",
                        settings.retryDelay().toMillis());
            }
            scheduler.schedule(this::refreshSoon, settings.retryDelay());
        }
    }

    private DirectorySnapshot nextSnapshot(DirectorySnapshot current) throws Exception {
        if (!readFromDatabase) {
            preparation.ensureDone();
            DirectorySnapshot loaded = fullLoad();
            readFromDatabase = true;
            return loaded;
        }
        if (clock.nanoTime() - lastFullLoadNanos >= settings.fullReloadInterval().toNanos()) {
            DirectorySnapshot loaded = fullLoad();
            pruning.prune();
            return loaded;
        }
        Optional<DirectorySnapshot> caughtUp = catchUp.apply(current);
        return caughtUp.isPresent() ? caughtUp.get() : fullLoad();
    }

    private DirectorySnapshot fullLoad() throws Exception {
        DirectorySnapshot loaded = loader.loadAll();
        lastFullLoadNanos = clock.nanoTime();
        loadedAll = true;
        return loaded;
    }

    private void restoreSavedSnapshot() {
        snapshotFile.flatMap(file -> file.read(directory.snapshot().rules().defaultRule(),
                directory.snapshot().limits().defaultPlanName())).ifPresent(restored -> {
            directory.replace(restored.snapshot());
            status.restored(restored.age());
            log.warn("Serving the directory snapshot saved {} s ago ({} rules, {} API keys) until PostgreSQL"
                    + " can be read", restored.age().toSeconds(), restored.snapshot().rules().size(),
                    restored.snapshot().tenantByKey().size());
        });
    }

    @Override
    public void close() {
        scheduler.close();
        if (snapshotWriter != null) {
            snapshotWriter.close();
        }
    }
}
