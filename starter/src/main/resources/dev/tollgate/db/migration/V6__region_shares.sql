-- Several regions (docs/multi-region.md): each region enforces a share of every limit in its own
-- Redis, and one gateway instance fleet-wide (the holder of an advisory lock) moves the shares toward
-- where the traffic is. Only Tollgate writes these tables.

-- The shares of the buckets the rebalancer tracks: one row per (bucket, region). A bucket without
-- rows is split by the configured default shares. A bucket's shares sum to exactly 1 000 000 parts
-- per million (checked at commit, below).
CREATE TABLE region_share (
    tenant_id  TEXT NOT NULL,
    route_id   TEXT NOT NULL,
    region     VARCHAR(32) NOT NULL,
    share_ppm  INT NOT NULL CHECK (share_ppm BETWEEN 1 AND 1000000),
    -- The region's smoothed demand, offered tokens per second; NULL while not known yet.
    demand     DOUBLE PRECISION CHECK (demand >= 0),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, route_id, region)
);

CREATE FUNCTION check_region_shares() RETURNS trigger AS $$
DECLARE
    tenant TEXT;
    route  TEXT;
    total  BIGINT;
BEGIN
    IF TG_OP = 'DELETE' THEN
        tenant := OLD.tenant_id;
        route := OLD.route_id;
    ELSE
        tenant := NEW.tenant_id;
        route := NEW.route_id;
    END IF;
    SELECT sum(share_ppm) INTO total FROM region_share WHERE tenant_id = tenant AND route_id = route;
    IF total IS NOT NULL AND total <> 1000000 THEN
        RAISE EXCEPTION 'region shares of tenant % route % sum to % ppm, not 1000000', tenant, route, total;
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

-- Deferred: a bucket's rows are replaced in one transaction, and only its end must add up.
CREATE CONSTRAINT TRIGGER region_shares_sum_to_one
    AFTER INSERT OR UPDATE OR DELETE ON region_share
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION check_region_shares();

-- Each instance's last window (one per rebalancer interval): the buckets it reported, with the
-- tokens offered and admitted and the window's length. Replaced by the instance at every report.
CREATE TABLE region_demand (
    instance_id     VARCHAR(200) NOT NULL,
    tenant_id       TEXT NOT NULL,
    route_id        TEXT NOT NULL,
    region          VARCHAR(32) NOT NULL,
    offered_tokens  BIGINT NOT NULL CHECK (offered_tokens >= 0),
    admitted_tokens BIGINT NOT NULL CHECK (admitted_tokens >= 0),
    window_ms       BIGINT NOT NULL CHECK (window_ms > 0),
    PRIMARY KEY (instance_id, tenant_id, route_id)
);

-- When each instance last reported (even nothing), and from which region: a region none of whose
-- instances reported lately holds every share where it is.
CREATE TABLE region_reporter (
    instance_id VARCHAR(200) PRIMARY KEY,
    region      VARCHAR(32) NOT NULL,
    reported_at TIMESTAMPTZ NOT NULL
);

-- One row: the version of the shares (raised whenever they change, so instances reload only then)
-- and the rebalancer's last run.
CREATE TABLE rebalancer_state (
    id             INT PRIMARY KEY CHECK (id = 1),
    shares_version BIGINT NOT NULL DEFAULT 0,
    last_run_at    TIMESTAMPTZ,
    last_run_by    VARCHAR(200)
);
INSERT INTO rebalancer_state (id) VALUES (1);
