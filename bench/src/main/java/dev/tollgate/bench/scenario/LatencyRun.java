package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.LoadResult;
import dev.tollgate.testkit.CommandCounts;

/**
 * One open-loop run of one target at one rate, the Redis commands it caused, and how many cores
 * other work on the machine used meanwhile (its noise).
 */
public record LatencyRun(int repetition, double rate, String target, LoadResult result, CommandCounts redisCommands,
                         double otherWorkCores) {
}
