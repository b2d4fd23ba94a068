package dev.tollgate.spring.autoconfigure;

import dev.tollgate.spring.settings.AdminProperties;
import dev.tollgate.spring.settings.InvalidSettingException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.env.Environment;

/**
 * Checked at start, with the limiter on: Tollgate's operations surface (health with its contributors,
 * metrics that may carry tenant names, the admin API) belongs on a management port of its own, never
 * on the port tenants call.
 *
 * <ul>
 *   <li>{@code management.server.port} set to {@code server.port} (and the gateway not bound to a
 *       loopback {@code server.address}, as dev mode and the benchmark are): refused, since actuator
 *       would then answer on the public port.</li>
 *   <li>{@code tollgate.admin.token} set with no {@code management.server.port}: refused, since the admin
 *       API exists only on a management port of its own, and the operator would find it missing.</li>
 *   <li>{@code tollgate.admin.allow-short-token} outside dev mode (profile {@code dev}): a WARN at start, every
 *       start, since a short token can be guessed.</li>
 * </ul>
 */
public final class ManagementPortCheck {

    private static final Logger log = LoggerFactory.getLogger(ManagementPortCheck.class);

    /** The profile dev mode runs in, the one place a short admin token is meant for. */
    static final String DEV_PROFILE = "dev";

    private ManagementPortCheck() {
    }

    /** The check, passed (else it throws {@link InvalidSettingException}). */
    static ManagementPortCheck check(Environment environment, AdminProperties admin) {
        String management = environment.getProperty("management.server.port", "").strip();
        String server = environment.getProperty("server.port", "8080").strip();
        if (management.isEmpty()) {
            if (admin.enabled()) {
                throw new InvalidSettingException("management.server.port", null,
                        "management.server.port is not set, so actuator shares the gateway port and the admin API"
                                + " (tollgate.admin.token is set) does not exist",
                        "Set management.server.port to a port of its own that only operators can reach (the Tollgate"
                                + " application uses 8081), or remove tollgate.admin.token.");
            }
        } else if (management.equals(server) && !management.equals("0") && !onLoopback(environment)) {
            throw new InvalidSettingException("management.server.port", management,
                    "management.server.port is " + management + ", the same as server.port: health, metrics and"
                            + " the other actuator endpoints would answer on the public gateway port",
                    "Set management.server.port to a port of its own that only operators can reach (the Tollgate"
                            + " application uses 8081), or bind the gateway to a loopback server.address.");
        }
        if (admin.allowShortToken() && !Arrays.asList(environment.getActiveProfiles()).contains(DEV_PROFILE)) {
            log.warn("""
                    !!! tollgate.admin.allow-short-token=true outside dev mode: the admin API accepts a token \
                    shorter than {} characters, which can be guessed. It is meant for dev mode only (profile \
                    '{}', listening on 127.0.0.1); remove it and give tollgate.admin.token at least {} characters.""",
                    AdminProperties.MIN_TOKEN_LENGTH, DEV_PROFILE, AdminProperties.MIN_TOKEN_LENGTH);
        }
        return new ManagementPortCheck();
    }

    private static boolean onLoopback(Environment environment) {
        String address = environment.getProperty("server.address", "").strip();
        if (address.isEmpty()) {
            return false;
        }
        try {
            return InetAddress.getByName(address).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
