package dev.tollgate.spring.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.tollgate.spring.settings.DatabaseEndpoint;
import javax.sql.DataSource;

/**
 * The JDBC connections the rule directory and the admin API share. The pool opens at the first
 * borrow (the directory's first load, once the application starts), without the database (start-up
 * never waits for PostgreSQL); its timeouts are the {@link ConnectionPolicy}'s, so
 * it gives up on a connection after the policy's pool wait (2 s) rather than hang while the database
 * is gone. Every connection works in the endpoint's schema, if it names one.
 */
public final class DirectoryConnectionPool implements AutoCloseable {

    private final HikariDataSource pool;
    private final String schema;

    private DirectoryConnectionPool(HikariDataSource pool, String schema) {
        this.pool = pool;
        this.schema = schema;
    }

    public static DirectoryConnectionPool open(DatabaseEndpoint endpoint, int size, ConnectionPolicy policy) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("tollgate-directory");
        config.setJdbcUrl(endpoint.url());
        config.setUsername(endpoint.username());
        config.setPassword(endpoint.password());
        config.setDataSourceProperties(policy.poolDriverProperties());
        if (endpoint.schema() != null) {
            config.addDataSourceProperty("currentSchema", endpoint.schema());
        }
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(policy.poolWait().toMillis());
        // Not HikariDataSource(config): that opens the pool (its threads, its first connection) at
        // once, while the application is still being built; this one opens at the first borrow.
        HikariDataSource pool = new HikariDataSource();
        config.copyStateTo(pool);
        return new DirectoryConnectionPool(pool, endpoint.schema());
    }

    public DataSource dataSource() {
        return pool;
    }

    /** The schema Tollgate's tables live in, or {@code null} for the connections' default. */
    public String schema() {
        return schema;
    }

    @Override
    public void close() {
        pool.close();
    }
}
