package dev.tollgate.spring.directory.database;

import dev.tollgate.core.LayeredMap;
import dev.tollgate.core.LogText;
import dev.tollgate.core.MonotonicClock;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.limits.Plan;
import dev.tollgate.core.limits.PlanBook;
import dev.tollgate.spring.directory.DirectorySnapshot;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A full load: every rule, plan, tenant's plan and active key in one consistent read of the
 * database, as a new snapshot; then each {@link ChangeLogFollower} reloads what it follows. Tenants on
 * a plan that could not be read (a malformed row, reported as such) are on the default plan: the load
 * says how many, per plan, at WARN.
 */
public final class DirectoryLoader {

    private static final Logger log = LoggerFactory.getLogger(DirectoryLoader.class);

    private final DirectoryRepository repository;
    private final RateLimitRule defaultRule;
    private final String defaultPlanName;
    private final Consumer<String> malformedRows;
    private final List<ChangeLogFollower> followers;
    private final MonotonicClock clock;

    public DirectoryLoader(DirectoryRepository repository, RateLimitRule defaultRule, String defaultPlanName,
                           Consumer<String> malformedRows, List<ChangeLogFollower> followers, MonotonicClock clock) {
        this.repository = repository;
        this.defaultRule = defaultRule;
        this.defaultPlanName = defaultPlanName;
        this.malformedRows = malformedRows;
        this.followers = List.copyOf(followers);
        this.clock = clock;
    }

    public DirectorySnapshot loadAll() throws Exception {
        long start = clock.nanoTime();
        DirectoryRepository.FullLoad load = repository.loadAll(malformedRows);
        RuleSet rules = RuleSet.of(defaultRule, load.rules());
        PlanBook limits = PlanBook.of(rules, load.plans(), LayeredMap.of(load.tenantPlans()), defaultPlanName);
        DirectorySnapshot snapshot = DirectorySnapshot.fromDatabase(limits, LayeredMap.of(load.tenantByKey()),
                load.cursor());
        for (ChangeLogFollower follower : followers) {
            follower.reloadAll();
        }
        reportTenantsOnUnreadPlans(load.plans(), load.tenantPlans());
        log.info("Loaded {} rules, {} plans, {} tenants' plans and {} API keys from PostgreSQL in {} ms", rules.size(),
                load.plans().size(), load.tenantPlans().size(), load.tenantByKey().size(),
                (clock.nanoTime() - start) / 1_000_000);
        return snapshot;
    }

    private static void reportTenantsOnUnreadPlans(List<Plan> plans, Map<String, String> tenantPlans) {
        Set<String> read = plans.stream().map(Plan::name).collect(Collectors.toSet());
        Map<String, Integer> onUnread = new TreeMap<>();
        tenantPlans.values().forEach(plan -> {
            if (!read.contains(plan)) {
                onUnread.merge(plan, 1, Integer::sum);
            }
        });
        onUnread.forEach((plan, tenants) -> log.warn("{} tenants are on plan '{}', which could not be read:"
                + " they are on the default plan until it is fixed", tenants, LogText.escape(plan, 80)));
    }
}
