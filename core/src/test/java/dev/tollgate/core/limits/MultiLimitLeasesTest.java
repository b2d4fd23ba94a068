package dev.tollgate.core.limits;

import static dev.tollgate.core.RandomizedCheck.between;
import static dev.tollgate.core.RandomizedCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.LeasePolicy;
import dev.tollgate.core.ManualClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * {@link MultiLimitLeases} on a manual clock over the reference evaluator as the shared states (an
 * in-memory source that does what {@code multi_limit.lua} and {@code multi_limit_return.lua} do):
 * several instances, three routes of one tenant, each request charged a route bucket, a tenant-wide
 * bucket and a minute quota, random policies and loads across a minute boundary. Checks the bounds
 * {@link MultiLimitLeases} states: no over-admission (a bucket's {@code C + R × T}, a quota's per
 * window, by the time each request was served), the burst bound, and that once every instance has
 * given back, the quota counts exactly the requests served in its window.
 */
class MultiLimitLeasesTest {

    /** Half a second before a minute's end, so that every run crosses a quota window early on. */
    private static final long BASE = Instant.parse("2026-12-05T11:59:59.500Z").toEpochMilli();
    private static final List<String> ROUTES = List.of("a", "b", "c");

    @Test
    void clusterWideAdmissionsStayWithinTheStatedBounds() {
        forAll(40, random -> {
            ManualClock time = new ManualClock(0);
            ReferenceSource shared = new ReferenceSource(() -> BASE + time.millis());
            int instances = (int) between(random, 1, 4);
            Limit perRoute = new Limit("rate", LimitScope.eachRoute(),
                    new TokenBucket(between(random, 5, 200), between(random, 1, 200)));
            Limit total = new Limit("total", LimitScope.tenant(),
                    new TokenBucket(between(random, 5, 300), between(random, 1, 300)));
            Limit minute = new Limit("minute", LimitScope.tenant(),
                    new CalendarQuota(between(random, 10, 500), QuotaPeriod.MINUTE));
            long leaseMillis = between(random, 1, 300);
            LeasePolicy policy = new LeasePolicy(between(random, 0, 50), leaseMillis, between(random, 1, 50),
                    0.05 + random.nextDouble() * 0.95, between(random, leaseMillis, 2000));
            List<MultiLimitLeases> stores = new ArrayList<>();
            for (int i = 0; i < instances; i++) {
                stores.add(new MultiLimitLeases(shared, policy, time));
            }
            boolean overload = random.nextBoolean();
            int events = (int) between(random, 1000, 4000);
            List<long[]> admitted = new ArrayList<>(); // {time ms since start, route}
            for (int e = 0; e < events; e++) {
                int route = random.nextInt(ROUTES.size());
                String r = ROUTES.get(route);
                List<LimitCharge> charges = List.of(LimitCharge.of("t", r, perRoute), LimitCharge.of("t", r, total),
                        LimitCharge.of("t", r, minute));
                Optional<MultiLimitLeases.Leased> leased = stores.get(random.nextInt(instances)).decide(charges)
                        .toCompletableFuture().join();
                MultiLimitDecision decision = leased.isPresent() ? leased.get().decision() : shared.decideOne(charges);
                if (decision.admitted()) {
                    admitted.add(new long[] {time.millis(), route});
                }
                time.advanceMillis(random.nextInt(overload ? 3 : 25));
            }
            int batch = MultiLimitLeases.maxRequests(List.of(LimitCharge.of("t", "a", perRoute),
                    LimitCharge.of("t", "a", total), LimitCharge.of("t", "a", minute)), policy, shared.maxRequests());
            String what = instances + " instances, " + perRoute.allowance() + " per route, " + total.allowance()
                    + " in all, " + minute.allowance() + ", " + policy + ", B=" + batch + ", " + events
                    + " requests, overload=" + overload + ", " + admitted.size() + " admitted";

            // The quota: never more than it allows in a window, by the time each request was served.
            CalendarQuota quota = (CalendarQuota) minute.allowance();
            long firstWindowEnd = quota.windowAt(BASE).endMillis() - BASE;
            long inFirst = admitted.stream().filter(a -> a[0] < firstWindowEnd).count();
            assertThat(inFirst).as(what).isLessThanOrEqualTo(quota.quota());
            assertThat(admitted.size() - inFirst).as(what).isLessThanOrEqualTo(quota.quota());

            // The buckets: C + R × T from the first request, and the burst bound in windows.
            checkBucket(what + ", tenant bucket", admitted, -1, (TokenBucket) total.allowance(),
                    (long) instances * ROUTES.size() * batch);
            for (int route = 0; route < ROUTES.size(); route++) {
                checkBucket(what + ", route " + route, admitted, route, (TokenBucket) perRoute.allowance(),
                        (long) instances * batch);
            }

            // Every instance gives back: the quota counts exactly what was served in its window.
            stores.forEach(MultiLimitLeases::close);
            LimitState.Quota state = (LimitState.Quota) shared.reference.state(minute.keyFor("t", "a"));
            if (state != null) {
                long start = state.windowStartMillis() - BASE;
                long end = quota.windowAt(state.windowStartMillis()).endMillis() - BASE;
                long served = admitted.stream().filter(a -> a[0] >= start && a[0] < end).count();
                assertThat(state.used()).as(what).isEqualTo(served);
            }
        });
    }

    private static void checkBucket(String what, List<long[]> admitted, int route, TokenBucket bucket, long slack) {
        BucketLimits limits = bucket.limits(1);
        List<Long> times = admitted.stream().filter(a -> route < 0 || a[1] == route).map(a -> a[0]).toList();
        if (times.isEmpty()) {
            return;
        }
        long first = 0; // the bucket is full at the first request of the run, whichever was admitted
        for (int i = 0; i < times.size(); i++) {
            long allowed = limits.capacityMicros() + limits.refillMicrosPerMilli() * (times.get(i) - first);
            assertThat((i + 1) * BucketLimits.MICROS_PER_TOKEN).as("%s: %d admitted by %d ms", what, i + 1, times.get(i))
                    .isLessThanOrEqualTo(allowed);
        }
        for (long w : new long[] {10, 100, 1000}) {
            int from = 0;
            for (int to = 0; to < times.size(); to++) {
                while (times.get(to) - times.get(from) >= w) {
                    from++;
                }
                long inWindow = to - from + 1;
                long bound = limits.capacityMicros() + limits.refillMicrosPerMilli() * w
                        + slack * BucketLimits.MICROS_PER_TOKEN;
                assertThat(inWindow * BucketLimits.MICROS_PER_TOKEN).as("%s: window of %d ms ending at %d", what, w,
                        times.get(to)).isLessThanOrEqualTo(bound);
            }
        }
    }

    /**
     * The shared states in memory: takes decide copies of a request with the reference until one is
     * rejected; give-backs as {@code multi_limit_return.lua} (a bucket's tokens as last written, capped
     * at the capacity; a quota's count only in the lease's window).
     */
    private static final class ReferenceSource implements MultiLimitLeaseSource {

        final ReferenceLimitEvaluator reference = new ReferenceLimitEvaluator();
        private final LongSupplier now;

        ReferenceSource(LongSupplier now) {
            this.now = now;
        }

        MultiLimitDecision decideOne(List<LimitCharge> charges) {
            return reference.decide(charges, now.getAsLong());
        }

        @Override
        public int maxRequests() {
            return 64;
        }

        @Override
        public CompletionStage<Grant> takeUpTo(List<LimitCharge> charges, int requests) {
            long at = now.getAsLong();
            List<MultiLimitDecision> admitted = new ArrayList<>();
            MultiLimitDecision rejection = null;
            while (admitted.size() < requests) {
                MultiLimitDecision d = reference.decide(charges, at);
                if (!d.admitted()) {
                    rejection = d;
                    break;
                }
                admitted.add(d);
            }
            return CompletableFuture.completedFuture(new Grant(charges, admitted, rejection, at));
        }

        @Override
        public CompletionStage<Void> giveBack(Grant grant, List<MultiLimitDecision> unspent) {
            for (MultiLimitDecision decision : unspent) {
                for (LimitOutcome outcome : decision.outcomes()) {
                    if (!outcome.admits()) {
                        continue;
                    }
                    LimitCharge charge = outcome.charge();
                    LimitState state = reference.state(charge.key());
                    if (charge.limit().allowance() instanceof TokenBucket bucket) {
                        BucketLimits limits = bucket.limits(charge.cost());
                        if (state instanceof LimitState.Bucket b && b.tokens() < limits.capacityMicros()) {
                            reference.put(charge.key(), new LimitState.Bucket(
                                    Math.min(limits.capacityMicros(), b.tokens() + limits.costMicros()), b.tsMillis()));
                        }
                    } else if (state instanceof LimitState.Quota q
                            && q.windowStartMillis() == outcome.window().startMillis()) {
                        reference.put(charge.key(), new LimitState.Quota(q.windowStartMillis(),
                                Math.max(0, q.used() - charge.cost())));
                    }
                }
            }
            return CompletableFuture.completedFuture(null);
        }
    }
}
