package dev.tollgate.spring.directory.database;

import java.util.List;

/**
 * What is done to the database once per process, before the first load: apply the schema migrations
 * (unless {@code tollgate.directory.migrate=false}), then write the {@link DirectorySeed}s (dev mode's
 * demo data). Each step is retried at the next refresh until it succeeds, and never repeated after.
 * Runs on the refresher's thread only.
 */
public final class DatabasePreparation {

    private final DirectoryRepository repository;
    private final boolean migrate;
    private final List<DirectorySeed> seeds;
    private volatile boolean migrated;
    private boolean seeded;

    public DatabasePreparation(DirectoryRepository repository, boolean migrate, List<DirectorySeed> seeds) {
        this.repository = repository;
        this.migrate = migrate;
        this.seeds = List.copyOf(seeds);
    }

    /**
     * Whether Tollgate's tables can be used: migrated by this process, or left to the operator
     * ({@code migrate=false}). Read from any thread.
     */
    public boolean schemaReady() {
        return migrated || !migrate;
    }

    /** Does what is still to do; throws if the database cannot be reached. */
    public void ensureDone() {
        if (migrate && !migrated) {
            repository.migrate();
            migrated = true;
        }
        if (!seeded) {
            for (DirectorySeed seed : seeds) {
                seed.seed(repository);
            }
            seeded = true;
        }
    }
}
