package dev.tollgate.spring.filter;

import dev.tollgate.core.BucketLimits;
import dev.tollgate.core.Decision;
import dev.tollgate.core.RateLimitRule;
import dev.tollgate.core.TokenBucketMath;
import dev.tollgate.core.limits.CalendarQuota;
import dev.tollgate.core.limits.Limit;
import dev.tollgate.core.limits.LimitOutcome;
import dev.tollgate.core.limits.MultiLimitDecision;
import dev.tollgate.core.limits.TokenBucket;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;

/**
 * The rate-limit headers of a response. Everything in them is about the requesting tenant's own
 * bucket on this route, nothing about anyone else's.
 *
 * <ul>
 *   <li>{@code X-RateLimit-Limit}: the bucket's capacity (the burst) in whole tokens: with several
 *       regions, this region's share of it, rounded down.</li>
 *   <li>{@code X-RateLimit-Remaining}: whole tokens left after this request.</li>
 *   <li>{@code X-RateLimit-Reset}: seconds until the bucket is full again, rounded up.</li>
 *   <li>{@code RateLimit-Policy: "<route>";q=<capacity>;w=<seconds to fill from empty>} and
 *       {@code RateLimit: "<route>";r=<remaining>;t=<seconds until full>}: the Structured Fields
 *       of draft-ietf-httpapi-ratelimit-headers. A token bucket is described as a quota of
 *       {@code capacity} tokens restored over {@code w} seconds.</li>
 * </ul>
 *
 * <p>A request decided on the multi-limit path (several limits, a tenant-wide one, a calendar
 * quota) lists every enforced limit that applies in {@code RateLimit-Policy}, each named by its
 * limit's name: {@code "<limit>";q=<capacity or quota>;w=<seconds to fill from empty, or the
 * quota's window length>}, in the order the limits apply. {@code RateLimit} and {@code X-RateLimit-*}
 * report the limit closest to exhaustion ({@link MultiLimitDecision#closestToExhaustion()}):
 * {@code X-RateLimit-Limit} its capacity or quota, {@code Remaining} what is left of it,
 * {@code Reset} and {@code t} the seconds until it is full again or its window ends, rounded up.
 * Shadow limits appear nowhere.
 */
public final class RateLimitHeaders {

    public static final String LIMIT = "X-RateLimit-Limit";
    public static final String REMAINING = "X-RateLimit-Remaining";
    public static final String RESET = "X-RateLimit-Reset";
    public static final String POLICY = "RateLimit-Policy";
    public static final String RATE_LIMIT = "RateLimit";

    /**
     * Limits described at most: past this many the descriptions are dropped and made again, so that
     * limits replaced by rule and plan changes do not pile up.
     */
    static final int MAX_DESCRIBED = 10_000;

    private final boolean xRateLimit;
    private final boolean ietf;
    /** Per limit, the fixed parts of its header items, made once: every response of the path writes them. */
    private final Map<Limit, Described> described = new ConcurrentHashMap<>();

    /** {@code "<name>";q=<amount>;w=} and {@code "<name>";r=}: what a limit's items start with. */
    private record Described(String policyItem, String rateLimitItem) {
    }

    public RateLimitHeaders(boolean xRateLimit, boolean ietf) {
        this.xRateLimit = xRateLimit;
        this.ietf = ietf;
    }

    /** Writes the enabled headers to {@code headers} (name, value), replacing any of the same name. */
    void write(BiConsumer<String, String> headers, String route, RateLimitRule rule, Decision decision) {
        long resetSeconds = TokenBucketMath.ceilDiv(decision.resetAfterMillis(), 1000);
        // The limits this instance enforces: the rule's, or with several regions its region's share.
        BucketLimits limits = rule.limits();
        if (xRateLimit) {
            headers.accept(LIMIT, Long.toString(limits.capacityTokens()));
            headers.accept(REMAINING, Long.toString(decision.remaining()));
            headers.accept(RESET, Long.toString(resetSeconds));
        }
        if (ietf) {
            String name = structuredString(route);
            long window = TokenBucketMath.ceilDiv(limits.millisToFill(), 1000);
            headers.accept(POLICY, name + ";q=" + limits.capacityTokens() + ";w=" + window);
            headers.accept(RATE_LIMIT, name + ";r=" + decision.remaining() + ";t=" + resetSeconds);
        }
    }

    /** Writes the enabled headers of a multi-limit decision; nothing when every limit is a shadow one. */
    void writeLimits(BiConsumer<String, String> headers, MultiLimitDecision decision) {
        LimitOutcome closest = decision.closestToExhaustion().orElse(null);
        if (closest == null) {
            return;
        }
        long resetSeconds = TokenBucketMath.ceilDiv(closest.resetAfterMillis(), 1000);
        if (xRateLimit) {
            headers.accept(LIMIT, Long.toString(amount(closest.limitDefinition())));
            headers.accept(REMAINING, Long.toString(closest.remaining()));
            headers.accept(RESET, Long.toString(resetSeconds));
        }
        if (ietf) {
            StringBuilder policy = new StringBuilder(64);
            for (LimitOutcome outcome : decision.outcomes()) {
                if (outcome.shadow()) {
                    continue;
                }
                if (!policy.isEmpty()) {
                    policy.append(", ");
                }
                policy.append(described(outcome.limitDefinition()).policyItem()).append(windowSeconds(outcome));
            }
            headers.accept(POLICY, policy.toString());
            headers.accept(RATE_LIMIT, described(closest.limitDefinition()).rateLimitItem() + closest.remaining()
                    + ";t=" + resetSeconds);
        }
    }

    private Described described(Limit limit) {
        Described known = described.get(limit);
        if (known == null) {
            if (described.size() >= MAX_DESCRIBED) {
                described.clear();
            }
            String name = structuredString(limit.name());
            known = new Described(name + ";q=" + amount(limit) + ";w=", name + ";r=");
            described.put(limit, known);
        }
        return known;
    }

    /** A limit's capacity (whole tokens) or quota, as written (not a fallback's or region's share). */
    private static long amount(Limit limit) {
        return limit.allowance() instanceof TokenBucket bucket ? bucket.capacity()
                : ((CalendarQuota) limit.allowance()).quota();
    }

    /** A bucket's time to fill from empty, or the length of the quota's window (23 or 25 h on a DST day), rounded up. */
    private static long windowSeconds(LimitOutcome outcome) {
        if (outcome.limitDefinition().allowance() instanceof TokenBucket bucket) {
            return TokenBucketMath.ceilDiv(bucket.limits(1).millisToFill(), 1000);
        }
        return TokenBucketMath.ceilDiv(outcome.window().endMillis() - outcome.window().startMillis(), 1000);
    }

    /** An RFC 8941 sf-string: quotes and backslashes escaped, anything but printable ASCII as '?'. */
    static String structuredString(String value) {
        StringBuilder out = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7F) {
                out.append(c);
            } else {
                out.append('?');
            }
        }
        return out.append('"').toString();
    }
}
