package dev.tollgate.spring.directory.database;

import dev.tollgate.core.RuleScope;
import dev.tollgate.spring.directory.DirectorySnapshot;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An incremental refresh: reads the change log from the snapshot's cursor (less
 * {@code change-lookback} rows, to catch transactions that committed out of id order), re-reads
 * only the rules, keys, plans and tenants' plans it names and hands rows of other kinds to their {@link ChangeLogFollower}.
 * The cost grows with the number of changes, not with the number of rules.
 *
 * <p>Bound: a change is seen at the first catch-up after its transaction commits, unless that
 * transaction committed after more than {@code change-lookback} newer changes had been read; such
 * a change is seen at the next full load.
 */
public final class ChangeLogCatchUp {

    private static final Logger log = LoggerFactory.getLogger(ChangeLogCatchUp.class);

    private final DirectoryRepository repository;
    private final int lookback;
    private final Consumer<String> malformedRows;
    private final Map<String, ChangeLogFollower> followers = new LinkedHashMap<>();

    public ChangeLogCatchUp(DirectoryRepository repository, int lookback, Consumer<String> malformedRows,
                     List<ChangeLogFollower> followers) {
        this.repository = repository;
        this.lookback = lookback;
        this.malformedRows = malformedRows;
        for (ChangeLogFollower follower : followers) {
            if (DirectoryChange.isDirectoryKind(follower.kind())
                    || this.followers.putIfAbsent(follower.kind(), follower) != null) {
                throw new IllegalArgumentException("change-log kind '" + follower.kind()
                        + "' already has a follower");
            }
        }
    }

    /**
     * {@code current} with the changes since its cursor applied; empty when the change log no longer
     * reaches back to the cursor (this instance was cut off for longer than the retention) and only
     * a full load can catch up.
     */
    public Optional<DirectorySnapshot> apply(DirectorySnapshot current) throws Exception {
        long oldest = repository.oldestChangeId();
        if (oldest > current.cursor() + 1 && current.cursor() > 0) {
            log.info("Change log no longer reaches change {} (oldest is {}): reloading everything",
                    current.cursor(), oldest);
            return Optional.empty();
        }
        List<DirectoryChange> changes = repository.changesAfter(Math.max(0, current.cursor() - lookback));
        Set<RuleScope> scopes = new HashSet<>();
        Set<String> keys = new HashSet<>();
        Set<String> plans = new HashSet<>();
        Set<String> tenantPlans = new HashSet<>();
        Map<ChangeLogFollower, List<DirectoryChange>> forFollowers = new LinkedHashMap<>();
        long cursor = current.cursor();
        for (DirectoryChange change : changes) {
            if (change.isRule()) {
                scopes.add(new RuleScope(change.tenant(), change.route()));
            } else if (change.isKey()) {
                keys.add(change.keyHash());
            } else if (DirectoryChange.PLAN.equals(change.kind())) {
                plans.add(change.plan());
            } else if (DirectoryChange.TENANT_PLAN.equals(change.kind())) {
                tenantPlans.add(change.tenant());
            } else {
                ChangeLogFollower follower = followers.get(change.kind());
                if (follower != null) {
                    forFollowers.computeIfAbsent(follower, f -> new ArrayList<>()).add(change);
                } else {
                    log.debug("Change {} of kind '{}' has no follower here; skipped", change.id(), change.kind());
                }
            }
            cursor = Math.max(cursor, change.id());
        }
        for (Map.Entry<ChangeLogFollower, List<DirectoryChange>> entry : forFollowers.entrySet()) {
            entry.getKey().changed(entry.getValue());
        }
        // Re-reading rows already applied is harmless: each is read as it is now.
        return Optional.of(new DirectorySnapshot(DirectorySnapshot.Origin.DATABASE,
                current.limits()
                        .withRuleChanges(repository.currentRules(scopes, malformedRows))
                        .withPlanChanges(repository.currentPlans(plans, malformedRows))
                        .withTenantPlanChanges(repository.currentTenantPlans(tenantPlans, malformedRows)),
                current.tenantByKey().with(repository.currentKeys(keys, malformedRows)),
                cursor));
    }
}
