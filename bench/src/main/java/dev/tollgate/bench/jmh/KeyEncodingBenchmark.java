package dev.tollgate.bench.jmh;

import dev.tollgate.core.RedisKeys;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Building a bucket's Redis key, once per request: ids that need no escaping (the common case, a
 * scan and one concatenation) and ids that do (percent-encoding of UTF-8 and reserved characters).
 * The ids are fields, not constants, so the JIT cannot fold the work away.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class KeyEncodingBenchmark {

    private String plainTenant = "tenant-48213";
    private String plainRoute = "create-order";
    private String escapedTenant = "shop:åse{eu}";
    private String escapedRoute = "orders/%ünïcode";

    @Benchmark
    public String plainIds() {
        return RedisKeys.bucket(plainTenant, plainRoute);
    }

    @Benchmark
    public String idsNeedingEscapes() {
        return RedisKeys.bucket(escapedTenant, escapedRoute);
    }
}
