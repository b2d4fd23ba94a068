package dev.tollgate.bench.load;

import org.HdrHistogram.Histogram;

/**
 * What one load run measured.
 *
 * @param target         the target's name
 * @param offeredRate    requests per second scheduled (open loop), or 0 for a closed-loop run
 * @param sent           requests sent
 * @param ok             2xx responses
 * @param limited        429 responses
 * @param otherStatus    responses with any other status
 * @param errors         requests with no response (timeout, connection error)
 * @param seconds        length of the measured window
 * @param admittedSpanSeconds for open-loop runs, from the first request's due time to the last 2xx
 *                       response: every admission was decided within it
 * @param latencyMicros  response times in microseconds; for open-loop runs measured from each
 *                       request's <em>intended</em> send time, so a stall delays every request
 *                       scheduled during it (no coordinated omission)
 * @param sendLagMicros  how late the generator actually sent each request after its intended time;
 *                       large values would mean the generator, not the target, was the bottleneck
 */
public record LoadResult(String target, double offeredRate, long sent, long ok, long limited, long otherStatus,
                         long errors, double seconds, double admittedSpanSeconds,
                         Histogram latencyMicros, Histogram sendLagMicros) {

    public long responses() {
        return ok + limited + otherStatus;
    }

    /** Responses per second over the measured window. */
    public double achievedRate() {
        return seconds > 0 ? responses() / seconds : 0;
    }

    /** A latency percentile in milliseconds. */
    public double percentileMillis(double percentile) {
        return latencyMicros.getTotalCount() == 0 ? Double.NaN
                : latencyMicros.getValueAtPercentile(percentile) / 1000.0;
    }

    public double maxMillis() {
        return latencyMicros.getTotalCount() == 0 ? Double.NaN : latencyMicros.getMaxValue() / 1000.0;
    }

    public String summary() {
        return String.format("%s offered=%.0f/s achieved=%.0f/s ok=%d 429=%d other=%d errors=%d "
                        + "p50=%.3fms p99=%.3fms p99.9=%.3fms max=%.3fms sendLag.p99=%.3fms",
                target, offeredRate, achievedRate(), ok, limited, otherStatus, errors,
                percentileMillis(50), percentileMillis(99), percentileMillis(99.9), maxMillis(),
                sendLagMicros.getTotalCount() == 0 ? 0 : sendLagMicros.getValueAtPercentile(99) / 1000.0);
    }
}
