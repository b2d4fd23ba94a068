package dev.tollgate.spring.directory.database;

import dev.tollgate.core.LayeredMap;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleSet;
import dev.tollgate.spring.directory.DirectorySnapshot;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A full load: every rule and active key in one consistent read of the database, as a new
 * snapshot; then each {@link ChangeLogFollower} reloads what it follows.
 */
public final class DirectoryLoader {

    private static final Logger log = LoggerFactory.getLogger(DirectoryLoader.class);

    private final DirectoryRepository repository;
    private final RateLimitRule defaultRule;
    private final Consumer<String> malformedRows;
    private final List<ChangeLogFollower> followers;
    private final MonotonicClock clock;

    public DirectoryLoader(DirectoryRepository repository, RateLimitRule defaultRule, Consumer<String> malformedRows,
                    List<ChangeLogFollower> followers, MonotonicClock clock) {
        this.repository = repository;
        this.defaultRule = defaultRule;
        this.malformedRows = malformedRows;
        this.followers = List.copyOf(followers);
        this.clock = clock;
    }

    public DirectorySnapshot loadAll() throws Exception {
        long start = clock.nanoTime();
        DirectoryRepository.FullLoad load = repository.loadAll(malformedRows);
        RuleSet rules = RuleSet.of(defaultRule, load.rules());
        DirectorySnapshot snapshot = DirectorySnapshot.fromDatabase(rules, LayeredMap.of(load.tenantByKey()),
                load.cursor());
        for (ChangeLogFollower follower : followers) {
            follower.reloadAll();
        }
        log.info("Loaded {} rules and {} API keys from PostgreSQL in {} ms", rules.size(), load.tenantByKey().size(),
                (clock.nanoTime() - start) / 1_000_000);
        return snapshot;
    }
}
