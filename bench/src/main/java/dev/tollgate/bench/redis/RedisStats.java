package dev.tollgate.bench.redis;

import dev.tollgate.testkit.CommandCounts;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;

/** Reads what the benchmark reports about Redis: command counts, memory, keys, version. */
public final class RedisStats implements AutoCloseable {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;

    public RedisStats(String host, int port) {
        this.client = RedisClient.create(RedisURI.builder().withHost(host).withPort(port)
                .withTimeout(Duration.ofSeconds(30)).build());
        this.connection = client.connect();
        this.redis = connection.sync();
    }

    public CommandCounts commandCounts() {
        return CommandCounts.parse(redis.info("commandstats"));
    }

    /**
     * Microseconds Redis has spent running scripts ({@code EVALSHA} and {@code EVAL}) since its
     * statistics were last reset: the {@code usec} of {@code INFO commandstats}, which Redis measures
     * around each command on its main thread, so it counts the script's own commands but neither
     * reading the request nor writing the reply (those are in {@link #cpuMillis}).
     */
    public long scriptMicros() {
        return scriptMicros(redis.info("commandstats"));
    }

    static long scriptMicros(String commandStats) {
        long usec = 0;
        for (String line : commandStats.split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
                    if (field.startsWith("usec=")) {
                        usec += Long.parseLong(field.substring("usec=".length()));
                    }
                }
            }
        }
        return usec;
    }

    /** CPU time Redis has used since it started (user + system, all its threads), in milliseconds. */
    public double cpuMillis() {
        String cpu = redis.info("cpu");
        return 1000 * (Double.parseDouble(infoField(cpu, "used_cpu_user")) + Double.parseDouble(infoField(cpu, "used_cpu_sys")));
    }

    public long usedMemoryBytes() {
        return Long.parseLong(infoField(redis.info("memory"), "used_memory"));
    }

    public String version() {
        return infoField(redis.info("server"), "redis_version");
    }

    public long keys() {
        return redis.dbsize();
    }

    public Long memoryUsage(String key) {
        return redis.memoryUsage(key);
    }

    public String scriptLoad(String script) {
        return redis.scriptLoad(script);
    }

    public void flushAll() {
        redis.flushall();
    }

    public void delete(String... keys) {
        redis.del(keys);
    }

    public List<String> scanKeys(String pattern, int max) {
        return redis.scan(ScanArgs.Builder.matches(pattern).limit(max)).getKeys();
    }

    static String infoField(String info, String field) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        throw new IllegalStateException("no " + field + " in INFO");
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
