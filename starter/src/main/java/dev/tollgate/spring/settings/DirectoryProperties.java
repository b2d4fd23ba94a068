package dev.tollgate.spring.settings;

import jakarta.validation.constraints.Min;
import java.time.Duration;
import org.hibernate.validator.constraints.time.DurationMin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How rules and API keys are read from PostgreSQL ({@code tollgate.directory.*}).
 *
 * @param refreshInterval    How often the change log is read, besides change notifications.
 * @param fullReloadInterval How often all rules and keys are read again, as a safety net.
 * @param retryDelay         Pause before retrying after the database could not be reached.
 * @param changeRetention    Change-log rows older than this are deleted.
 * @param changeLookback     Change-log rows re-read behind the last one seen, to catch changes whose transactions
 *                           committed out of id order.
 * @param migrate            Whether the gateway applies its schema migrations itself at start.
 * @param poolSize           JDBC connections kept for refreshes and the admin API; at least 2 while {@code migrate}
 *                           is on, because Flyway holds one connection for its lock while it migrates on
 *                           another (with 1 the first load would wait for itself forever).
 * @param unverifiedKeys     What requests get while no API key could ever be checked (PostgreSQL unreachable since
 *                           start, and no saved snapshot restored): shared-default-rule or reject.
 * @param initialLoadTimeout How long start-up waits for the first load of rules and keys (it goes on without them).
 */
@ConfigurationProperties("tollgate.directory")
@Validated
public record DirectoryProperties(
        @DefaultValue("30s") @DurationMin(nanos = 1) Duration refreshInterval,
        @DefaultValue("1h") @DurationMin(nanos = 1) Duration fullReloadInterval,
        @DefaultValue("2s") @DurationMin(nanos = 1) Duration retryDelay,
        @DefaultValue("24h") @DurationMin(nanos = 1) Duration changeRetention,
        @DefaultValue("1000") @Min(0) int changeLookback,
        @DefaultValue("true") boolean migrate,
        @DefaultValue("4") @Min(1) int poolSize,
        @DefaultValue("shared-default-rule") UnverifiedKeyPolicy unverifiedKeys,
        @DefaultValue("10s") @DurationMin(nanos = 1) Duration initialLoadTimeout) {

    public DirectoryProperties {
        if (migrate && poolSize < 2) {
            throw new InvalidSettingException("tollgate.directory.pool-size", Integer.toString(poolSize),
                    "tollgate.directory.pool-size must be at least 2 while tollgate.directory.migrate is true"
                            + " (the schema migration holds two connections), was " + poolSize,
                    "Set tollgate.directory.pool-size to 2 or more, or apply the migrations yourself and set"
                            + " tollgate.directory.migrate=false.");
        }
    }
}
