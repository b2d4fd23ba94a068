package dev.tollgate.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.ToIntFunction;

/**
 * Sharded buckets for hot keys (seed §7.2b): a rule's bucket split into {@code N} shards, each with
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
 *       otherwise; {@code limit} is the whole rule's capacity; {@code retryAfterMillis} and
 *       {@code resetAfterMillis} are the tried shard's (the sooner of the two shards' retry times
 *       with the second chance).</li>
 * </ul>
 *
 * <p>Use shards when a tenant's rate is too much for one Redis node even with leases, or when
 * instances are so many that leases' {@code N × batch} burst is too loose; see
 * {@code docs/hot-keys-and-cluster.md}.
 */
public final class ShardedBucketStore implements BucketStore {

    private final BucketStore shards;
    private final ToIntFunction<BucketKey> shardCount;
    private final boolean secondChance;

    /**
     * @param shards       the store holding the shards (Redis, usually a cluster)
     * @param shardCount   how many shards a key's rule has, 1 (not split) to
     *                     {@link BucketKey#MAX_SHARDS}
     * @param secondChance whether a request the first shard rejects tries one other shard
     */
    public ShardedBucketStore(BucketStore shards, ToIntFunction<BucketKey> shardCount, boolean secondChance) {
        this.shards = shards;
        this.shardCount = shardCount;
        this.secondChance = secondChance;
    }

    @Override
    public CompletionStage<Decision> tryAcquire(BucketKey key, BucketLimits limits) {
        int n = shardCount.applyAsInt(key);
        if (n < 1 || n > BucketKey.MAX_SHARDS) {
            throw new IllegalStateException("shard count of " + key + " must be in [1, "
                    + BucketKey.MAX_SHARDS + "], was " + n);
        }
        if (n == 1 || !limits.costFits()) {
            return shards.tryAcquire(key, limits);
        }
        BucketLimits share = limits.dividedAmong(n);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int first = random.nextInt(n);
        CompletionStage<Decision> decision = shards.tryAcquire(key.shard(first), share);
        if (secondChance) {
            // Any shard but the first, uniformly.
            int second = (first + 1 + random.nextInt(n - 1)) % n;
            decision = decision.thenCompose(d -> d.allowed()
                    ? CompletableFuture.completedFuture(d)
                    : shards.tryAcquire(key.shard(second), share).thenApply(d2 -> d2.allowed() ? d2 : sooner(d, d2)));
        }
        return decision.thenApply(d -> wholeRule(d, n, limits));
    }

    private static Decision sooner(Decision a, Decision b) {
        return a.retryAfterMillis() <= b.retryAfterMillis() ? a : b;
    }

    private static Decision wholeRule(Decision shard, int n, BucketLimits limits) {
        long remaining = Math.min(limits.capacityTokens(), shard.remaining() * n);
        return new Decision(shard.allowed(), remaining, limits.capacityTokens(), shard.retryAfterMillis(),
                shard.resetAfterMillis());
    }
}
