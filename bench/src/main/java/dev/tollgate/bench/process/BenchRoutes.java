package dev.tollgate.bench.process;

/**
 * The routes and limits every gateway of the benchmark is started with.
 *
 * <p>{@code bench} is the route the latency and throughput runs use: its limit is so high that
 * every request is admitted, so each variant does its full work (decide, then forward) on every
 * request. {@code accuracy} has a real limit, shared by all instances, for the accuracy run.
 */
public final class BenchRoutes {

    public static final String BENCH_ROUTE = "bench";
    public static final String BENCH_PATH = "/bench/item";

    /** Never reached by the latency runs: 10^6 tokens of burst, refilled at 10^6 per second. */
    public static final long UNREACHED_CAPACITY = 1_000_000;
    public static final long UNREACHED_RATE = 1_000_000;

    /** A day's quota never reached: 10^12 (the largest a quota may be), against at most ~10^10 requests a day here. */
    public static final long UNREACHED_QUOTA = 1_000_000_000_000L;

    /** The default plan of {@link GatewayVariant#TOLLGATE_THREE_LIMITS}. */
    public static final String THREE_LIMIT_PLAN = "bench-three";
    /** Its limits: a bucket on each route, a bucket on the tenant, a UTC day quota on the tenant. */
    public static final java.util.List<String> THREE_LIMIT_NAMES = java.util.List.of("per-route", "per-tenant", "daily");

    /** The well-keyed client of the bogus-key flood: one tenant. */
    public static final String VICTIM_TENANT = "well-keyed";
    /** The key of the variant check's probe, and of the hot mix. */
    public static final String PROBE_TENANT = "variant-check";
    public static final String HOT_TENANT = "hot-tenant";
    /** The cold mix's tenants are {@code tenant-0} ... (the latency runs' key pool). */
    public static final String COLD_TENANT_PREFIX = "tenant-";
    /** The keys the flood sends: never issued. */
    public static final String BOGUS_KEY_PREFIX = "guess-";

    public static final String ACCURACY_ROUTE = "accuracy";
    public static final String ACCURACY_PATH = "/accuracy/item";
    public static final String ACCURACY_TENANT = "accuracy-tenant";
    public static final long ACCURACY_CAPACITY = 100;
    public static final long ACCURACY_RATE = 100;

    /**
     * The parallel-burst check: one tenant's bucket of 50 refilled at 1 token/s, hit by 1,000
     * requests from 100 concurrent clients.
     */
    public static final String BURST_ROUTE = "burst";
    public static final String BURST_PATH = "/burst/item";
    public static final String BURST_TENANT = "burst-tenant";
    public static final long BURST_CAPACITY = 50;
    public static final long BURST_RATE = 1;

    private BenchRoutes() {
    }
}
