package dev.tollgate.core;

import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Property checks over random samples, with no library: each try draws its inputs from a
 * {@link SplittableRandom} seeded per run; a failure reports the seed and the try, and setting the
 * system property {@code tollgate.check.seed} to that seed replays the same samples.
 */
public final class RandomizedCheck {

    private RandomizedCheck() {
    }

    public static void forAll(int tries, Consumer<SplittableRandom> property) {
        long seed = Long.getLong("tollgate.check.seed", System.nanoTime());
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < tries; i++) {
            try {
                property.accept(random);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("property failed at try " + i + " of run with seed " + seed
                        + " (replay with -Dtollgate.check.seed=" + seed + ")", e);
            }
        }
    }

    /** A long in [min, max], with the bounds themselves drawn more often than chance would. */
    public static long between(SplittableRandom random, long min, long max) {
        int pick = random.nextInt(10);
        if (pick == 0) {
            return min;
        }
        if (pick == 1) {
            return max;
        }
        return max == Long.MAX_VALUE ? random.nextLong(min, max) : random.nextLong(min, max + 1);
    }
}
