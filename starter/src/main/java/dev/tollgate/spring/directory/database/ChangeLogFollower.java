package dev.tollgate.spring.directory.database;

import java.util.List;

/**
 * Data besides rules and keys that is kept in step with PostgreSQL through the directory's change
 * path: a table whose triggers record its changes in {@code directory_change} under a kind of its
 * own (and so notify {@code tollgate_directory}) gets them applied by a follower, on the same
 * notifications and polls as rules and keys. Declare one as a bean; the refresher calls it on its
 * own thread, never on the request path, and a follower that throws fails the refresh (retried
 * after {@code tollgate.directory.retry-delay}).
 */
public interface ChangeLogFollower {

    /** The {@code directory_change.kind} this follower applies. */
    String kind();

    /**
     * Reads everything it follows: at the first load, at every full reload, and when the change log
     * no longer reaches back to the last change seen.
     */
    void reloadAll() throws Exception;

    /**
     * Re-reads what these rows of its kind name (oldest first). Rows already applied may come again
     * ({@code tollgate.directory.change-lookback} re-reads the last ones), so applying a row twice
     * must be harmless: read each thing as it is now.
     */
    void changed(List<DirectoryChange> rows) throws Exception;
}
