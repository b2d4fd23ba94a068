package dev.tollgate.spring.autoconfigure;

import java.util.List;
import org.springframework.util.ClassUtils;

/**
 * What {@code tollgate.source=database} needs on the class path besides the starter: the PostgreSQL
 * driver, the connection pool, Spring's JDBC support and Flyway with its PostgreSQL support. The starter
 * declares them optional, so that an application with static rules carries none of them;
 * {@link #ARTIFACT} brings them all.
 */
final class PostgresSupport {

    /** The artifact that brings them, as an application declares it. */
    static final String ARTIFACT = "dev.tollgate:tollgate-spring-boot-starter-postgresql";

    /** One class of each needed jar. Keep in step with {@link DatabaseDirectoryConfiguration}'s condition. */
    static final List<String> CLASSES = List.of(
            "org.postgresql.Driver",
            "com.zaxxer.hikari.HikariDataSource",
            "org.springframework.jdbc.core.JdbcTemplate",
            "org.flywaydb.core.Flyway",
            "org.flywaydb.database.postgresql.PostgreSQLDatabaseType");

    private PostgresSupport() {
    }

    /** The needed classes the class loader cannot find. */
    static List<String> missing(ClassLoader classLoader) {
        return CLASSES.stream().filter(name -> !ClassUtils.isPresent(name, classLoader)).toList();
    }
}
