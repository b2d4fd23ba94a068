package dev.tollgate.spring.directory;

import dev.tollgate.core.LayeredMap;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.RuleSet;
import java.time.Instant;
import java.util.List;

/**
 * Everything the request path needs from the database, immutable: the rules and which tenant each
 * API key hash belongs to, as of change {@code cursor} of the change log.
 *
 * @param loaded      whether this came from the database at all (false until the first load)
 * @param rules       the rules, with the configured default
 * @param tenantByKey tenant by SHA-256 (hex) of an active API key
 * @param cursor      id of the last change-log row reflected here
 * @param refreshedAt when this was last confirmed against the database
 */
public record DirectorySnapshot(boolean loaded, RuleSet rules, LayeredMap<String, String> tenantByKey,
                                long cursor, Instant refreshedAt) {

    /** What the gateway has before the database has been read: the default rule, no keys. */
    public static DirectorySnapshot notLoaded(RateLimitRule defaultRule) {
        return new DirectorySnapshot(false, RuleSet.of(defaultRule, List.of()), LayeredMap.empty(), 0, null);
    }
}
