package dev.tollgate.gateway.config;

import dev.tollgate.gateway.directory.UnverifiedKeyPolicy;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How rules and API keys are read from PostgreSQL ({@code tollgate.directory.*}).
 *
 * @param refreshInterval    how often the change log is read, besides change notifications
 * @param fullReloadInterval how often everything is read again, as a safety net
 * @param retryDelay         pause before retrying after the database could not be reached
 * @param changeRetention    change-log rows older than this are deleted
 * @param changeLookback     change-log rows re-read behind the last one seen, to catch changes whose
 *                           transactions committed out of id order
 * @param migrate            whether the gateway applies the schema migrations itself
 * @param poolSize           JDBC connections kept for refreshes and the admin API
 * @param unverifiedKeys     what requests get while no key could ever be checked
 * @param initialLoadTimeout how long start-up waits for the first load (it goes on without it)
 */
@ConfigurationProperties("tollgate.directory")
public record DirectoryProperties(
        @DefaultValue("30s") Duration refreshInterval,
        @DefaultValue("1h") Duration fullReloadInterval,
        @DefaultValue("2s") Duration retryDelay,
        @DefaultValue("24h") Duration changeRetention,
        @DefaultValue("1000") int changeLookback,
        @DefaultValue("true") boolean migrate,
        @DefaultValue("4") int poolSize,
        @DefaultValue("shared-default-rule") UnverifiedKeyPolicy unverifiedKeys,
        @DefaultValue("10s") Duration initialLoadTimeout) {

    public DirectoryProperties {
        RedisGuardProperties.requirePositive("tollgate.directory.refresh-interval", refreshInterval);
        RedisGuardProperties.requirePositive("tollgate.directory.full-reload-interval", fullReloadInterval);
        RedisGuardProperties.requirePositive("tollgate.directory.retry-delay", retryDelay);
        RedisGuardProperties.requirePositive("tollgate.directory.change-retention", changeRetention);
        RedisGuardProperties.requirePositive("tollgate.directory.initial-load-timeout", initialLoadTimeout);
        if (changeLookback < 0) {
            throw new IllegalArgumentException("tollgate.directory.change-lookback must be >= 0, was " + changeLookback);
        }
        if (poolSize < 1) {
            throw new IllegalArgumentException("tollgate.directory.pool-size must be at least 1, was " + poolSize);
        }
    }
}
