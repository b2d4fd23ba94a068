package dev.tollgate.redis;

import static dev.tollgate.core.RandomizedCheck.forAll;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tollgate.core.BucketKey;
import dev.tollgate.core.RedisKeys;
import io.lettuce.core.cluster.SlotHash;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Properties of the key encoding, checked with Redis Cluster's own slot function (Lettuce's
 * {@link SlotHash}): no two (tenant, route) pairs share a key, and all keys of a tenant share a slot;
 * shards of a bucket have keys of their own and spread over slots.
 */
class RedisKeysPropertyTest {

    /** Characters that could confuse a naive encoding, plus plain ones to build look-alikes. */
    private static final String[] ALPHABET = {
        "a", "b", "{", "}", ":", "%", "7", "B", "D", "3", "A", "2", "5", "u", " ", "\t", "é", "😀",
        "\uD800", "\uDC00", "\u0000", "rl:", "{a}",
    };

    private static String randomId(SplittableRandom random) {
        if (random.nextInt(50) == 0) {
            return "x".repeat(1024) + ALPHABET[random.nextInt(ALPHABET.length)]; // 1 KB ids
        }
        int length = 1 + random.nextInt(6);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++) {
            sb.append(ALPHABET[random.nextInt(ALPHABET.length)]);
        }
        return sb.toString();
    }

    @Test
    void distinctPairsNeverShareAKey() {
        Map<String, String> pairByKey = new HashMap<>();
        forAll(200_000, random -> {
            String tenant = randomId(random);
            String route = randomId(random);
            String pair = tenant + "\u0001" + route.length() + "\u0001" + route;
            String previous = pairByKey.putIfAbsent(RedisKeys.bucket(tenant, route), pair);
            if (previous != null) {
                assertThat(previous).as("key %s", RedisKeys.bucket(tenant, route)).isEqualTo(pair);
            }
        });
    }

    @Test
    void allKeysOfATenantHashToOneSlot() {
        forAll(20_000, random -> {
            String tenant = randomId(random);
            String key1 = RedisKeys.bucket(tenant, randomId(random));
            String key2 = RedisKeys.bucket(tenant, randomId(random));
            assertThat(SlotHash.getSlot(key1)).isEqualTo(SlotHash.getSlot(key2));
            assertThat(SlotHash.getSlot(key1)).isEqualTo(SlotHash.getSlot(RedisKeys.escape(tenant)));
        });
    }

    @Test
    void shardKeysNeverShareAKeyWithAnyOtherBucket() {
        Map<String, String> bucketByKey = new HashMap<>();
        forAll(200_000, random -> {
            String tenant = randomId(random);
            String route = randomId(random);
            int shard = random.nextInt(3) - 1; // whole, 0 or 1
            String bucket = tenant + "\u0001" + route.length() + "\u0001" + route + "\u0001" + shard;
            String key = new BucketKey(tenant, route, shard).redisKey();
            String previous = bucketByKey.putIfAbsent(key, bucket);
            if (previous != null) {
                assertThat(previous).as("key %s", key).isEqualTo(bucket);
            }
        });
    }

    @Test
    void shardsOfATenantSpreadOverSlotsAndEachShardKeepsItsRoutesTogether() {
        int tenants = 2000;
        int shards = 8;
        int[] collisions = {0};
        forAll(tenants, random -> {
            BucketKey whole = new BucketKey(randomId(random), randomId(random));
            Set<Integer> slots = new HashSet<>();
            for (int i = 0; i < shards; i++) {
                int slot = SlotHash.getSlot(whole.shard(i).redisKey());
                slots.add(slot);
                BucketKey otherRoute = new BucketKey(whole.tenant(), randomId(random), i);
                assertThat(SlotHash.getSlot(otherRoute.redisKey())).isEqualTo(slot);
            }
            collisions[0] += shards - slots.size();
        });
        // Independent slots would collide for 2000 × 28 / 16384 ≈ 3.4 pairs; a shared tag for all.
        assertThat(collisions[0]).isLessThan(30);
    }

    @Test
    void keysArePlainAscii() {
        forAll(20_000, random -> {
            String key = RedisKeys.bucket(randomId(random), randomId(random));
            assertThat(key.chars().allMatch(c -> c > ' ' && c < 0x7F)).as(key).isTrue();
        });
    }
}
