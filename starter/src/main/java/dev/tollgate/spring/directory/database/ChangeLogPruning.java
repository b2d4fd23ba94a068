package dev.tollgate.spring.directory.database;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes change-log rows older than {@code tollgate.directory.change-retention}, by the database's
 * own clock ({@code now()}), the clock that stamped them: a gateway whose clock is off cannot prune
 * rows that other instances still need, nor keep rows forever. Run after each periodic full load.
 */
public final class ChangeLogPruning {

    private static final Logger log = LoggerFactory.getLogger(ChangeLogPruning.class);

    private final DirectoryRepository repository;
    private final Duration retention;

    public ChangeLogPruning(DirectoryRepository repository, Duration retention) {
        this.repository = repository;
        this.retention = retention;
    }

    public void prune() {
        int pruned = repository.pruneChanges(retention);
        log.debug("Pruned {} change-log rows", pruned);
    }
}
