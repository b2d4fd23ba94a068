package dev.tollgate.bench.scenario;

import dev.tollgate.bench.load.LoadResult;
import dev.tollgate.bench.metrics.TimeHistogram;
import dev.tollgate.testkit.CommandCounts;

/**
 * One open-loop run of one target at one rate, the Redis commands it caused, and how many cores
 * other work on the machine used meanwhile (its noise), and, for Tollgate, how long its requests
 * waited for their decisions as the gateway itself timed them, and how long its Redis calls took from
 * being written to their replies being read ({@link TimeHistogram#NONE} otherwise).
 */
public record LatencyRun(int repetition, double rate, String target, LoadResult result, CommandCounts redisCommands,
                         double otherWorkCores, TimeHistogram decisionTimes, TimeHistogram redisCallTimes) {
}
