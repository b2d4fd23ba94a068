-- The original rule table (docs/rules-and-keys.md, "Schema"); V2 evolves it.
CREATE TABLE rate_limit_rule (
    id                BIGSERIAL PRIMARY KEY,
    tenant_id         VARCHAR(64) NOT NULL,
    route_id          VARCHAR(64) NOT NULL,
    capacity          INT NOT NULL CHECK (capacity > 0),
    refill_per_second INT NOT NULL CHECK (refill_per_second > 0),
    updated_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (tenant_id, route_id)
);
