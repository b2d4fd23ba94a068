package dev.tollgate.spring.autoconfigure;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.tollgate.spring.directory.DatabaseEndpoint;
import javax.sql.DataSource;

/**
 * The JDBC connections the rule directory and the admin API share. The pool opens without the
 * database (start-up never waits for PostgreSQL) and gives up on a connection after 2 s rather than
 * hang while the database is gone.
 */
final class DirectoryConnectionPool implements AutoCloseable {

    private final HikariDataSource pool;

    private DirectoryConnectionPool(HikariDataSource pool) {
        this.pool = pool;
    }

    static DirectoryConnectionPool open(DatabaseEndpoint endpoint, int size) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("tollgate-directory");
        config.setJdbcUrl(endpoint.url());
        config.setUsername(endpoint.username());
        config.setPassword(endpoint.password());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(2_000);
        return new DirectoryConnectionPool(new HikariDataSource(config));
    }

    DataSource dataSource() {
        return pool;
    }

    @Override
    public void close() {
        pool.close();
    }
}
