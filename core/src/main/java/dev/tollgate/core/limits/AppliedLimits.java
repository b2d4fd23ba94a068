package dev.tollgate.core.limits;

import dev.tollgate.core.RateLimitRule;

import java.util.List;

/**
 * The limits that apply to one request, each with where it comes from, and how the request is
 * decided.
 *
 * <p>A request whose only limit is one token bucket per route (the tenant's own rule, the default
 * rule, or a plan with a single per-route bucket) is decided on the <em>single-bucket path</em>,
 * exactly as before plans existed, with every mode of it (hot-key leases, shards, the local
 * fallback, regional shares): {@link #singleBucket()} is then the rule to enforce. Any other set of
 * limits (several, a tenant-wide one, a calendar quota) is decided all or nothing by the
 * multi-limit path, and {@link #singleBucket()} is null.
 *
 * @param limits       every limit that applies, in the order precedence gave them; empty when none
 *                     does (a plan without limits): the request is admitted without asking Redis
 * @param singleBucket the rule of the single-bucket path, or null for the multi-limit path
 */
public record AppliedLimits(List<LimitPrecedence.Applied> limits, RateLimitRule singleBucket) {

    public AppliedLimits {
        limits = List.copyOf(limits);
        if (singleBucket != null && limits.size() != 1) {
            throw new IllegalArgumentException("the single-bucket path is for a request with one limit, not "
                    + limits.size());
        }
    }

    /** Whether the request is decided on the single-bucket path, with {@link #singleBucket()}. */
    public boolean onSingleBucketPath() {
        return singleBucket != null;
    }

    /** The same limits with the single-bucket rule replaced (a region's share of it, say). */
    public AppliedLimits withSingleBucket(RateLimitRule rule) {
        if (singleBucket == null || rule == null) {
            throw new IllegalStateException("only a single-bucket request has a rule to replace");
        }
        return rule.equals(singleBucket) ? this : new AppliedLimits(limits, rule);
    }
}
