package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.directory.snapshot.SnapshotFile;
import dev.tollgate.spring.instances.SavedInstanceCount;
import dev.tollgate.spring.localstate.LocalState;
import dev.tollgate.spring.localstate.LocalStateDirectory;
import dev.tollgate.spring.localstate.LocalStateKey;
import dev.tollgate.spring.localstate.UnsafeLocalStateException;
import dev.tollgate.spring.metrics.TollgateMeters;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import dev.tollgate.spring.settings.InvalidSettingException;
import dev.tollgate.spring.settings.LocalStateProperties;
import dev.tollgate.spring.settings.TollgateProperties;
import io.micrometer.core.instrument.FunctionCounter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The folder of {@code tollgate.local-state.*}, unless {@code tollgate.local-state.enabled=false}: the
 * one set, or one of this instance's own in the user's home folder; its files authenticated with
 * {@code tollgate.local-state.secret} or, unset, the database password.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(TollgateSwitches.LocalStateOn.class)
class LocalStateConfiguration {

    private static final Logger log = LoggerFactory.getLogger(LocalStateConfiguration.class);

    /**
     * A folder that exists but is not private stops the start, reported as a refused
     * {@code tollgate.local-state.directory} with what to do: it is
     * there by someone's act, and running on without the local state would only hide it until the
     * outage it is kept for. No secret, or no home folder for the default, leaves the local state off
     * with a line at start instead: nothing is wrong, something is missing. Without a secret that line
     * is a WARN with rules in PostgreSQL (the directory snapshot is lost) and an INFO with static rules,
     * where only the instance count is lost: every static-rules application without a secret would
     * otherwise warn at every start about something it does not need.
     */
    @Bean
    LocalState tollgateLocalState(LocalStateProperties properties, TollgateProperties tollgate,
                                  Environment environment, ObjectProvider<DatabaseEndpoint> database,
                                  TollgateMeters meters) {
        Optional<LocalStateKey> key = key(properties, database.getIfAvailable());
        if (key.isEmpty()) {
            if (tollgate.source() == TollgateProperties.Source.STATIC) {
                log.info("Local state is off: no tollgate.local-state.secret to authenticate its files with. With"
                        + " static rules it would keep only the last instance count, for an instance that starts"
                        + " while Redis is unreachable; set tollgate.local-state.secret (the same on every instance"
                        + " of this deployment) to keep it");
            } else {
                log.warn("Local state is off: nothing to authenticate its files with, so an instance that starts"
                        + " while PostgreSQL is unreachable has no saved rules and keys. Set"
                        + " tollgate.local-state.secret (the same on every instance of this deployment), or give"
                        + " PostgreSQL a password; or set tollgate.local-state.enabled=false to silence this line");
            }
            return LocalState.none();
        }
        Optional<Path> directory = properties.directory() != null ? Optional.of(properties.directory())
                : defaultDirectory(environment);
        if (directory.isEmpty()) {
            log.warn("Local state is off: no home folder to keep it in (user.home={}); set"
                    + " tollgate.local-state.directory", System.getProperty("user.home"));
            return LocalState.none();
        }
        LocalStateDirectory folder = folder(directory.get(), key.get(), properties.directory() == null);
        for (String file : List.of(SnapshotFile.FILE_NAME, SavedInstanceCount.FILE_NAME)) {
            FunctionCounter.builder("tollgate.local.state.refused", folder, f -> f.refusals(file))
                    .description("Files of the local state refused when read: not private, not authentic,"
                            + " malformed or from another database")
                    .tag("file", file)
                    .register(meters.registry());
        }
        log.info("Local state in {}, authenticated with {}", folder.directory(), key.get().origin());
        return new LocalState(Optional.of(folder));
    }

    /** The folder, or the start stops with what to do if it is not private. */
    private static LocalStateDirectory folder(Path directory, LocalStateKey key, boolean byDefault) {
        try {
            return new LocalStateDirectory(directory, key);
        } catch (UnsafeLocalStateException e) {
            String folder = directory.toAbsolutePath().normalize().toString();
            // Unset, the folder is the default one: say so, or the user looks for a setting that is not there.
            String message = byDefault ? e.getMessage().replace(folder, folder + " (this instance's default)")
                    : e.getMessage();
            throw new InvalidSettingException("tollgate.local-state.directory", folder, message,
                    "A folder another user owns or may write can hold files planted for this gateway to serve. If "
                            + folder + " is this gateway's own, make it private to the user the gateway runs as: "
                            + "chmod 700 " + folder + " (and chown it to that user if another owns it). Otherwise set"
                            + " tollgate.local-state.directory to another folder (Tollgate creates a missing one"
                            + " owner-only), or tollgate.local-state.enabled=false to start without local state.");
        }
    }

    private static Optional<LocalStateKey> key(LocalStateProperties properties, DatabaseEndpoint database) {
        if (properties.secret() != null) {
            return Optional.of(LocalStateKey.derivedFrom(properties.secret(), "tollgate.local-state.secret"));
        }
        if (database != null && database.password() != null && !database.password().isEmpty()) {
            return Optional.of(LocalStateKey.derivedFrom(database.password(), "the database password"));
        }
        return Optional.empty();
    }

    /**
     * {@code ~/.tollgate/local-state/APPLICATION-PORT}: the user's own (no other user can create it
     * first, as anyone can in the shared temporary folder), one per instance on a host, and the same
     * after a restart so that the instance finds what it saved.
     */
    static Optional<Path> defaultDirectory(Environment environment) {
        String home = System.getProperty("user.home");
        if (home == null || home.isBlank() || !Path.of(home).isAbsolute() || !Files.isDirectory(Path.of(home))) {
            return Optional.empty();
        }
        String application = environment.getProperty("spring.application.name", "tollgate");
        String port = environment.getProperty("server.port", "8080");
        String name = (application + "-" + port).replaceAll("[^A-Za-z0-9._-]", "_");
        return Optional.of(Path.of(home, ".tollgate", "local-state", name));
    }
}
