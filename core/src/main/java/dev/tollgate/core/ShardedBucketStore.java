package dev.tollgate.core;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntUnaryOperator;

/**
 * Sharded buckets for hot keys ({@code docs/hot-keys-and-cluster.md}): a rule's bucket split into {@code N} shards, each with
 * {@code capacity / N} and {@code rate / N} ({@link BucketLimits#dividedAmong(int)}), whose keys
 * ({@code rl:{tenant:i}:route}, see {@link RedisKeys#shard}) hash to different cluster slots, so one
 * hot tenant's load spreads over the cluster's masters instead of melting one. Each request takes its
 * tokens from one shard picked at random; if that shard is empty and {@code secondChance} is on, it
 * tries one other shard (picked at random too) before being rejected. Still one Redis call per
 * admitted request (two for a request the first shard rejects).
 *
 * <p><b>Accuracy</b>, for a rule of capacity {@code C} and rate {@code R} split {@code N} ways:
 * <ul>
 *   <li>Never more than the rule: the shards together hold at most {@code C} and refill at most
 *       {@code R}, so the cluster admits at most {@code C + R × T} over any {@code T} — except that a
 *       shard never holds less than one request's cost, so where {@code C / N < cost} the shards
 *       together hold up to {@code N × cost}; rounding each share down to a micro-token loses less
 *       than {@code N} micro-tokens of burst and {@code N × 0.001} token/s of rate.</li>
 *   <li>Early rejections: a request is rejected when the shard(s) it tried are empty, while the
 *       other shards may still hold tokens — at most {@code (N − 1) / N × C} of them (all other
 *       shards full), {@code (N − 2) / N × C} with the second chance. Under a steady load above the
 *       rate every shard is drained and the admitted rate is {@code R}; below the rate, random
 *       spreading gives each shard {@code 1/N} of the load with fluctuations its own burst
 *       {@code C / N} absorbs, so rejections stay rare while {@code C / N} is large compared with the
 *       requests one shard sees in {@code C / R}.</li>
 *   <li>The decision reports {@code remaining} as the tried shard's remaining times {@code N} (capped
 *       at {@code C}): exact when the shards are level, off by the imbalance between shards
 *       otherwise; {@code limit} is the whole rule's capacity; {@code resetAfterMillis} is the tried
 *       shard's (the one with the sooner retry time, with the second chance), and so is the
 *       {@code retryAfterMillis} of an admission.</li>
 *   <li>The {@code retryAfterMillis} of a <b>rejection</b> is a wait that a retry of the same cost
 *       honours whichever shard(s) it lands on, absent other requests: the retry tries {@code k}
 *       random shards ({@code k = 1}, or 2 with the second chance) and passes if one of them holds
 *       the cost, so it is enough that at most {@code k − 1} shards still lack it. The tried shards'
 *       waits are known; every other shard holds at least 0 tokens, so it holds the cost after at
 *       most {@code F = ⌈cost / shareRate⌉} ms. The store reports the {@code k}-th longest of these
 *       waits: {@code F} without the second chance; with it, the sooner of the two tried shards' for
 *       2 shards (both were tried: exact), the later of them for 3, and {@code F} from 4 shards up.
 *       So it is never shorter than the true wait (the shortest every shard choice honours, from the
 *       shards' actual contents), never longer than {@code F}, and longer than the true wait by at
 *       most {@code F} — the time one shard takes to refill one request's cost, {@code N} times the
 *       unsharded bucket's. Not covered: a shard whose Redis clock stepped back (it refills only once
 *       the clock catches up, see {@code bucket_refill.lua}), and shards that are themselves leased
 *       ({@link LeasingBucketStore} may reject locally until a batch is back), whose tried waits
 *       count but whose untried ones may exceed {@code F}.</li>
 * </ul>
 *
 * <p>Use shards when a tenant's rate is too much for one Redis node even with leases, or when
 * instances are so many that leases' {@code N × batch} burst is too loose; see
 * {@code docs/hot-keys-and-cluster.md}.
 */
public final class ShardedBucketStore {

    private static final IntUnaryOperator RANDOM = bound -> ThreadLocalRandom.current().nextInt(bound);

    private final BucketStore shards;
    private final boolean secondChance;
    private final IntUnaryOperator pick;

    /**
     * @param shards       the store holding the buckets and their shards (Redis, usually a cluster)
     * @param secondChance whether a request the first shard rejects tries one other shard
     */
    public ShardedBucketStore(BucketStore shards, boolean secondChance) {
        this(shards, secondChance, RANDOM);
    }

    /** As above, with {@code pick.applyAsInt(bound)} choosing shards in {@code [0, bound)}: for tests. */
    ShardedBucketStore(BucketStore shards, boolean secondChance, IntUnaryOperator pick) {
        this.shards = shards;
        this.secondChance = secondChance;
        this.pick = pick;
    }

    /**
     * Decides {@code request} on its whole bucket when its rule is not split ({@code shards == 1}),
     * on its shards otherwise.
     */
    public CompletionStage<Decision> tryAcquire(BucketRequest request) {
        BucketKey key = request.key();
        BucketLimits limits = request.limits();
        int n = request.shards();
        if (n == 1 || !limits.costFits()) {
            return shards.tryAcquire(key, limits);
        }
        BucketLimits share = limits.dividedAmong(n);
        int first = pick.applyAsInt(n);
        CompletionStage<Decision> decision = shards.tryAcquire(key.shard(first), share);
        if (secondChance) {
            // Any shard but the first, uniformly.
            int second = (first + 1 + pick.applyAsInt(n - 1)) % n;
            decision = decision.thenCompose(d -> d.allowed()
                    ? CompletableFuture.completedFuture(d)
                    : shards.tryAcquire(key.shard(second), share).thenApply(d2 -> d2.allowed()
                            ? d2
                            : withRetryAfter(sooner(d, d2), honouredWait(n, 2, share, d, d2))));
        } else {
            decision = decision.thenApply(d -> d.allowed() ? d : withRetryAfter(d, honouredWait(n, 1, share, d)));
        }
        return decision.thenApply(d -> wholeRule(d, n, limits));
    }

    /**
     * The wait after which a retry that tries {@code triesPerRequest} distinct shards at random passes
     * whichever it picks, absent other requests: the {@code triesPerRequest}-th longest of all
     * shards' waits, then at most {@code triesPerRequest − 1} shards still lack the cost. The tried
     * shards' waits are known; any other shard holds at least 0 tokens, so it holds the cost after
     * at most {@code ⌈cost / shareRate⌉} ms, which stands in for its wait.
     */
    static long honouredWait(int n, int triesPerRequest, BucketLimits share, Decision... tried) {
        long fromEmpty = TokenBucketMath.ceilDiv(share.costMicros(), share.refillMicrosPerMilli());
        int unknown = n - tried.length;
        // Only the longest triesPerRequest waits matter: the known ones and up to that many unknown.
        long[] waits = new long[tried.length + Math.min(unknown, triesPerRequest)];
        for (int i = 0; i < tried.length; i++) {
            waits[i] = tried[i].retryAfterMillis();
        }
        Arrays.fill(waits, tried.length, waits.length, fromEmpty);
        Arrays.sort(waits);
        return waits[waits.length - triesPerRequest];
    }

    private static Decision sooner(Decision a, Decision b) {
        return a.retryAfterMillis() <= b.retryAfterMillis() ? a : b;
    }

    private static Decision withRetryAfter(Decision d, long retryAfterMillis) {
        return new Decision(d.allowed(), d.remaining(), d.limit(), retryAfterMillis, d.resetAfterMillis(),
                d.servedFromLease());
    }

    private static Decision wholeRule(Decision shard, int n, BucketLimits limits) {
        long remaining = Math.min(limits.capacityTokens(), shard.remaining() * n);
        return new Decision(shard.allowed(), remaining, limits.capacityTokens(), shard.retryAfterMillis(),
                shard.resetAfterMillis(), shard.servedFromLease());
    }
}
