package dev.tollgate.bench.report;

import dev.tollgate.bench.metrics.DecisionSplit;

/**
 * Whether a cluster run measured the Redis path alone, or the local fallback took part; template
 * {@code report/fallback-note.mustache}, used by the accuracy and hot-key sections.
 */
record FallbackNote(String run, boolean noDecisions, boolean redisPathOnly, boolean fallbackTookPart,
                    DecisionSplit split) {

    static FallbackNote of(DecisionSplit d, String run) {
        boolean none = d.decisions() == 0;
        // Each failed or cut-off decision call is decided by the fallback, so failures imply fallback decisions.
        boolean redisOnly = !none && !d.fallbackDecided() && d.redisFailures() == 0;
        return new FallbackNote(run, none, redisOnly, !none && !redisOnly, d);
    }
}
