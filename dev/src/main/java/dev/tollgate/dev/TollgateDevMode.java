package dev.tollgate.dev;

import dev.tollgate.gateway.EventLoopCount;
import dev.tollgate.gateway.TollgateApplication;
import java.util.Arrays;
import org.springframework.boot.builder.SpringApplicationBuilder;

/**
 * Starts Tollgate in dev mode: the production application ({@link TollgateApplication}) plus
 * {@link DevModeConfiguration} (a real redis-server and PostgreSQL on free ports, a demo backend,
 * demo rules and keys) and the {@code dev} profile ({@code application-dev.yml}). Arguments are
 * passed on, so any setting can still be given as {@code --name=value}. With {@code --database-only}
 * it starts the dev PostgreSQL alone ({@link DevDatabase}).
 */
public final class TollgateDevMode {

    /** The profile dev mode runs with; its settings are in {@code application-dev.yml}. */
    public static final String PROFILE = "dev";

    private TollgateDevMode() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (Arrays.asList(args).contains(DevDatabase.FLAG)) {
            DevDatabase.run(args);
            return;
        }
        EventLoopCount.onePerCoreUnlessSet();
        application().run(args);
    }

    /** The dev-mode application, not yet started. */
    public static SpringApplicationBuilder application() {
        return new SpringApplicationBuilder(TollgateApplication.class, DevModeConfiguration.class).profiles(PROFILE);
    }
}
