-- Fractional refill rates (down to 0.001 token/s) and a per-request cost.
ALTER TABLE rate_limit_rule
    ALTER COLUMN refill_per_second TYPE NUMERIC(13, 3),
    ADD COLUMN cost INT NOT NULL DEFAULT 1 CHECK (cost > 0),
    ADD CONSTRAINT rate_limit_rule_cost_fits CHECK (cost <= capacity);

-- API keys: only a SHA-256 hash of each key is stored; the plain key is shown once, at creation.
CREATE TABLE api_key (
    id         BIGSERIAL PRIMARY KEY,
    key_hash   CHAR(64) NOT NULL UNIQUE,
    tenant_id  VARCHAR(64) NOT NULL,
    label      VARCHAR(200) NOT NULL DEFAULT '',
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at TIMESTAMPTZ
);
CREATE INDEX api_key_tenant ON api_key (tenant_id);

-- Every change to a rule or a key, so that gateway instances can refresh by reading only what
-- changed since they last looked. Rows older than the retention are deleted by the gateways.
CREATE TABLE directory_change (
    id         BIGSERIAL PRIMARY KEY,
    kind       VARCHAR(8) NOT NULL CHECK (kind IN ('rule', 'key')),
    tenant_id  VARCHAR(64) NOT NULL,
    route_id   VARCHAR(64),
    key_hash   CHAR(64),
    changed_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX directory_change_changed_at ON directory_change (changed_at);

CREATE FUNCTION record_rule_change() RETURNS trigger AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO directory_change (kind, tenant_id, route_id) VALUES ('rule', OLD.tenant_id, OLD.route_id);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO directory_change (kind, tenant_id, route_id) VALUES ('rule', NEW.tenant_id, NEW.route_id);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER rate_limit_rule_changed
    AFTER INSERT OR UPDATE OR DELETE ON rate_limit_rule
    FOR EACH ROW EXECUTE FUNCTION record_rule_change();

CREATE FUNCTION record_key_change() RETURNS trigger AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO directory_change (kind, tenant_id, key_hash) VALUES ('key', OLD.tenant_id, OLD.key_hash);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO directory_change (kind, tenant_id, key_hash) VALUES ('key', NEW.tenant_id, NEW.key_hash);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER api_key_changed
    AFTER INSERT OR UPDATE OR DELETE ON api_key
    FOR EACH ROW EXECUTE FUNCTION record_key_change();

-- One notification per committing transaction (identical payloads are folded by PostgreSQL),
-- delivered only on commit: listeners then read the change log.
CREATE FUNCTION notify_directory_change() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('tollgate_directory', 'changed');
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER directory_change_notify
    AFTER INSERT ON directory_change
    FOR EACH STATEMENT EXECUTE FUNCTION notify_directory_change();
