package dev.tollgate.bench.scenario;

import dev.tollgate.testkit.CommandCounts;
import dev.tollgate.bench.redis.RedisStats;
import dev.tollgate.core.BucketKey;
import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.redis.RedisBucketStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.netty.channel.DefaultEventLoop;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What Redis pays per 1,000 decisions as the tenants grow and as instances sharing one Redis grow:
 * script calls (round trips), commands executed (inside the scripts included) and Redis's CPU time.
 * No HTTP: each simulated instance is a {@link RedisBucketStore} on a connection of its own, fed at
 * a fixed total rate split evenly over the instances, every tenant cold (one decision each in turn).
 *
 * <p>Two ways of sending, side by side: <em>batched</em>, requests issued on an event loop once a
 * millisecond as an HTTP loop issues what it read in one turn (the store sends them as one call),
 * and <em>one call per decision</em>, the same requests issued from a plain thread (each sent
 * alone: the way every decision went to Redis before batching). Batching gains with the rate each
 * instance sees; with many instances each sees less, and calls carry fewer decisions.
 */
public final class CostCurve {

    public static final String BATCHED = "batched";
    public static final String ONE_CALL_EACH = "one call per decision";

    /** One measured point. */
    public record Point(String sending, int tenants, int instances, long decisions, CommandCounts commands,
                        double redisCpuMillis) {

        public double scriptCallsPerThousand() {
            return perThousand(commands.scriptCalls());
        }

        public double commandsPerThousand() {
            return perThousand(commands.total());
        }

        public double redisCpuMillisPerThousand() {
            return decisions == 0 ? Double.NaN : redisCpuMillis * 1000 / decisions;
        }

        private double perThousand(long n) {
            return decisions == 0 ? Double.NaN : n * 1000.0 / decisions;
        }
    }

    private static final BucketLimits UNREACHED = RateLimitRule.of(1_000_000_000L, 1_000_000_000d).limits();

    private final String host;
    private final int port;
    private final RedisStats stats;
    private final Progress progress;

    public CostCurve(String host, int port, RedisStats stats, Progress progress) {
        this.host = host;
        this.port = port;
        this.stats = stats;
        this.progress = progress;
    }

    /** Tenants grow at one instance, then instances grow at the first tenant count; both ways of sending. */
    public List<Point> run(List<Integer> tenantCounts, List<Integer> instanceCounts, double ratePerSecond, Duration length) {
        List<Point> points = new ArrayList<>();
        List<int[]> shapes = new ArrayList<>();
        tenantCounts.forEach(t -> shapes.add(new int[] {t, 1}));
        instanceCounts.stream().filter(n -> n > 1).forEach(n -> shapes.add(new int[] {tenantCounts.get(0), n}));
        for (int[] shape : shapes) {
            for (String sending : List.of(BATCHED, ONE_CALL_EACH)) {
                Point p = point(sending, shape[0], shape[1], ratePerSecond, length, points.size());
                progress.say("cost curve %s: %d tenants, %d instances: %.0f script calls, %.0f commands, %.1f ms Redis CPU"
                                + " per 1,000 decisions (%d decisions)", sending, p.tenants(), p.instances(),
                        p.scriptCallsPerThousand(), p.commandsPerThousand(), p.redisCpuMillisPerThousand(), p.decisions());
                points.add(p);
            }
        }
        return points;
    }

    private Point point(String sending, int tenants, int instances, double ratePerSecond, Duration length, int serial) {
        List<RedisClient> clients = new ArrayList<>();
        List<DefaultEventLoop> loops = new ArrayList<>();
        ScheduledExecutorService plain = Executors.newScheduledThreadPool(1);
        AtomicLong next = new AtomicLong();
        AtomicLong decided = new AtomicLong();
        String prefix = "cost-" + serial + "-";
        try {
            List<ScheduledFuture<?>> tickers = new ArrayList<>();
            double perTick = ratePerSecond / instances / 1000;
            CommandCounts before = null;
            double cpuBefore = 0;
            for (int i = 0; i < instances; i++) {
                RedisClient client = RedisClient.create(RedisURI.create(host, port));
                clients.add(client);
                StatefulRedisConnection<String, String> connection = client.connect(StringCodec.UTF8);
                RedisBucketStore store = RedisBucketStore.on(connection);
                Runnable tick = ticker(store, perTick, tenants, prefix, next, decided);
                if (BATCHED.equals(sending)) {
                    DefaultEventLoop loop = new DefaultEventLoop();
                    loops.add(loop);
                    tickers.add(loop.scheduleAtFixedRate(tick, 1, 1, TimeUnit.MILLISECONDS));
                } else {
                    tickers.add(plain.scheduleAtFixedRate(tick, 1, 1, TimeUnit.MILLISECONDS));
                }
            }
            before = stats.commandCounts();
            cpuBefore = stats.cpuMillis();
            long decidedBefore = decided.get();
            sleep(length);
            CommandCounts commands = stats.commandCounts().since(before);
            double cpu = stats.cpuMillis() - cpuBefore;
            long decisions = decided.get() - decidedBefore;
            tickers.forEach(t -> t.cancel(false));
            return new Point(sending, tenants, instances, decisions, commands, cpu);
        } finally {
            plain.shutdownNow();
            loops.forEach(l -> l.shutdownGracefully(0, 1, TimeUnit.SECONDS));
            clients.forEach(c -> c.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
        }
    }

    /** Each tick issues the requests due by then at {@code perTick} requests a millisecond. */
    private static Runnable ticker(RedisBucketStore store, double perTick, int tenants, String prefix, AtomicLong next,
                                   AtomicLong decided) {
        double[] owed = {0};
        return () -> {
            owed[0] += perTick;
            while (owed[0] >= 1) {
                owed[0]--;
                long i = next.getAndIncrement();
                store.tryAcquire(new BucketKey(prefix + (i % tenants), "orders"), UNREACHED)
                        .thenRun(decided::incrementAndGet);
            }
        };
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
