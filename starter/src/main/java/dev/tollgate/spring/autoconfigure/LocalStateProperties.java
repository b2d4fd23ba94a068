package dev.tollgate.spring.autoconfigure;

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
 * @param directory Folder they are kept in (created owner-only if missing); by default "tollgate" in the JVM's
 *                  temporary folder (java.io.tmpdir). Put it on storage that outlives a restart of the instance.
 */
@ConfigurationProperties("tollgate.local-state")
public record LocalStateProperties(@DefaultValue("true") boolean enabled, Path directory) {

    public LocalStateProperties {
        if (directory == null) {
            directory = Path.of(System.getProperty("java.io.tmpdir"), "tollgate");
        }
    }
}
