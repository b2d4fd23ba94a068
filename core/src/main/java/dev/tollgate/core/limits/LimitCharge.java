package dev.tollgate.core.limits;

import java.util.Objects;

/**
 * One limit a request is charged to: the state it counts in, the limit, and what this request costs
 * against it (the limit's own {@link Limit#cost()} unless the request says otherwise).
 *
 * @param key   the limit's state for this request, see {@link Limit#keyFor}
 * @param limit the limit
 * @param cost  1 to {@value #MAX_COST}; above the limit's capacity or quota the request never passes
 */
public record LimitCharge(LimitKey key, Limit limit, long cost) {

    /** Largest cost of one request: as micro-tokens it stays far below 2<sup>53</sup>. */
    public static final long MAX_COST = 1_000_000_000L;

    public LimitCharge {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(limit, "limit");
        if (!key.limit().equals(limit.name())) {
            throw new IllegalArgumentException("key " + key + " is not limit " + limit.name() + "'s");
        }
        if (cost < 1 || cost > MAX_COST) {
            throw new IllegalArgumentException("cost must be between 1 and " + MAX_COST + ", was " + cost);
        }
    }

    /** {@code tenant}'s request on {@code route}, charged the limit's own cost. */
    public static LimitCharge of(String tenant, String route, Limit limit) {
        return new LimitCharge(limit.keyFor(tenant, route), limit, limit.cost());
    }

    // Written out, as LimitKey's: a request's charges are the key of its lease-table entry, looked up
    // on every request of the multi-limit path, and a request's limits are the plan's own instances,
    // so the identity check settles most comparisons. Same contract as the generated methods.
    @Override
    public boolean equals(Object other) {
        return this == other || other instanceof LimitCharge charge && cost == charge.cost
                && key.equals(charge.key) && limit.equals(charge.limit);
    }

    @Override
    public int hashCode() {
        return (31 * key.hashCode() + limit.hashCode()) * 31 + Long.hashCode(cost);
    }
}
