package dev.tollgate.spring.settings;

import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * What an instance keeps on local disk so that it starts well while PostgreSQL or Redis is
 * unreachable ({@code tollgate.local-state.*}): the last snapshot of rules and API key hashes, and the
 * last instance count learnt for the local fallback.
 *
 * @param enabled   Whether the last directory snapshot and instance count are saved on disk and used at a start
 *                  without PostgreSQL or Redis.
 * @param directory Folder they are kept in, private to this instance: created owner-only (0700) if missing, and
 *                  refused at start (the gateway does not start) if it exists but another user owns it or group
 *                  or others may write it. By default ".tollgate/local-state/APPLICATION-PORT" in the user's home
 *                  folder (spring.application.name, "tollgate" if unset, and server.port), the same across
 *                  restarts of the instance. Put it on storage that outlives a restart of the instance.
 * @param secret    Secret the files are authenticated with (an HMAC-SHA256 key is derived from it), at least 16
 *                  characters: a file written with another secret, or by an older Tollgate, is refused. Unset, the
 *                  database password is used (tollgate.datasource.password when tollgate.datasource.url is set,
 *                  else spring.datasource.password); with neither, the local state is not used (a line at start
 *                  says so: a WARN with rules in PostgreSQL, an INFO with static rules, where only the instance
 *                  count is lost). Give every instance of one deployment the same secret.
 */
@ConfigurationProperties("tollgate.local-state")
public record LocalStateProperties(@DefaultValue("true") boolean enabled, Path directory, String secret) {

    static final int SHORTEST_SECRET = 16;

    public LocalStateProperties {
        if (secret != null && secret.length() < SHORTEST_SECRET) {
            // The secret itself is never quoted.
            throw new InvalidSettingException("tollgate.local-state.secret", null, "tollgate.local-state.secret must"
                    + " have at least " + SHORTEST_SECRET + " characters, it has " + secret.length());
        }
    }

    @Override
    public String toString() {
        return "LocalStateProperties[enabled=" + enabled + ", directory=" + directory + ", secret="
                + (secret == null ? "unset" : "set") + "]";
    }
}
