package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.directory.DatabaseEndpoint;
import dev.tollgate.spring.directory.SnapshotFile;
import dev.tollgate.spring.instances.SavedInstanceCount;
import dev.tollgate.spring.localstate.LocalState;
import dev.tollgate.spring.localstate.LocalStateDirectory;
import dev.tollgate.spring.localstate.LocalStateKey;
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
     * A folder that exists but is not private stops the start (UnsafeLocalStateException): it is
     * there by someone's act, and running on without the local state would only hide it until the
     * outage it is kept for. No secret, or no home folder for the default, leaves the local state off
     * with a WARN line instead: nothing is wrong, something is missing.
     */
    @Bean
    LocalState tollgateLocalState(LocalStateProperties properties, Environment environment,
                                  ObjectProvider<DatabaseEndpoint> database, TollgateMeters meters) {
        Optional<LocalStateKey> key = key(properties, database.getIfAvailable());
        if (key.isEmpty()) {
            log.warn("Local state is off: nothing to authenticate its files with. Set tollgate.local-state.secret"
                    + " (the same on every instance of this deployment), or give PostgreSQL a password; or set"
                    + " tollgate.local-state.enabled=false to silence this line");
            return LocalState.none();
        }
        Optional<Path> directory = properties.directory() != null ? Optional.of(properties.directory())
                : defaultDirectory(environment);
        if (directory.isEmpty()) {
            log.warn("Local state is off: no home folder to keep it in (user.home={}); set"
                    + " tollgate.local-state.directory", System.getProperty("user.home"));
            return LocalState.none();
        }
        LocalStateDirectory folder = new LocalStateDirectory(directory.get(), key.get());
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
