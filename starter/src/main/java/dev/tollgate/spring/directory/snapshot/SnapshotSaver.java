package dev.tollgate.spring.directory.snapshot;

import dev.tollgate.spring.directory.DirectorySnapshot;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Saves snapshots to the {@link SnapshotFile} off the refresher's thread, so that a large write
 * never delays the next change: while one is being written, newer snapshots replace each other and
 * only the newest is written next. A failed write is logged (WARN once, INFO when writes work again)
 * and changes nothing else: the file keeps its previous content.
 */
public final class SnapshotSaver {

    private static final Logger log = LoggerFactory.getLogger(SnapshotSaver.class);

    private final SnapshotFile file;
    private final Executor writer;
    private final AtomicReference<DirectorySnapshot> pending = new AtomicReference<>();
    private volatile boolean failing;

    /** {@code writer} runs one task at a time (a single thread; the caller's thread in tests). */
    public SnapshotSaver(SnapshotFile file, Executor writer) {
        this.file = file;
        this.writer = writer;
    }

    public void save(DirectorySnapshot snapshot) {
        if (pending.getAndSet(snapshot) == null) {
            writer.execute(this::writePending);
        }
    }

    private void writePending() {
        DirectorySnapshot snapshot;
        while ((snapshot = pending.getAndSet(null)) != null) {
            try {
                file.save(snapshot);
                if (failing) {
                    log.info("Saved the directory snapshot to {} again", file.path());
                }
                failing = false;
            } catch (Exception e) {
                if (!failing) {
                    log.warn("Cannot save the directory snapshot to {} ({}); a restart while PostgreSQL is"
                            + " unreachable would start without it", file.path(), e.toString());
                }
                failing = true;
            }
        }
    }
}
