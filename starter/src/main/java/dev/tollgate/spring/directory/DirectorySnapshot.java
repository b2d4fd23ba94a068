package dev.tollgate.spring.directory;

import dev.tollgate.core.LayeredMap;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleSet;
import dev.tollgate.core.limits.PlanBook;
import java.util.List;

/**
 * Everything the request path needs from the database, immutable: the rules, the plans and which
 * plan each tenant is on, and which tenant each API key hash belongs to, as of change {@code cursor}
 * of the change log.
 *
 * @param origin      where it came from: nowhere yet, the database, or the snapshot saved on disk
 * @param limits      the rules (with the configured default), the plans and the tenants' plans (with
 *                    the configured default plan)
 * @param tenantByKey tenant by SHA-256 (hex) of an active API key
 * @param cursor      id of the last change-log row reflected here
 */
public record DirectorySnapshot(Origin origin, PlanBook limits, LayeredMap<String, String> tenantByKey, long cursor) {

    /** Where a snapshot came from. */
    public enum Origin {
        /** Nothing read yet: the default rule, no keys (see {@link dev.tollgate.spring.settings.UnverifiedKeyPolicy UnverifiedKeyPolicy}). */
        NOT_LOADED("none"),
        /** Read from PostgreSQL by this instance. */
        DATABASE("database"),
        /** Read at start from the last snapshot this instance (or one sharing its folder) saved. */
        SAVED_FILE("saved-file");

        private final String tag;

        Origin(String tag) {
            this.tag = tag;
        }

        /** As shown in health details. */
        public String tag() {
            return tag;
        }
    }

    /**
     * What the gateway has before anything has been read: the default rule (as the default plan, unless
     * a plan named {@code defaultPlanName} is read later), no plans, no keys.
     */
    public static DirectorySnapshot notLoaded(RateLimitRule defaultRule, String defaultPlanName) {
        return new DirectorySnapshot(Origin.NOT_LOADED, PlanBook.of(RuleSet.of(defaultRule, List.of()),
                defaultPlanName), LayeredMap.empty(), 0);
    }

    /** A snapshot read from the database. */
    public static DirectorySnapshot fromDatabase(PlanBook limits, LayeredMap<String, String> tenantByKey, long cursor) {
        return new DirectorySnapshot(Origin.DATABASE, limits, tenantByKey, cursor);
    }

    /** The tenants' own rules and the default rule. */
    public RuleSet rules() {
        return limits.rules();
    }

    /** Whether API keys can be checked: something was read, from the database or the saved file. */
    public boolean loaded() {
        return origin != Origin.NOT_LOADED;
    }
}
