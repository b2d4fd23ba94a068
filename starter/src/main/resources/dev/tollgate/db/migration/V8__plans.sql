-- Plans (issue 22, docs/rules-and-keys.md "Plans"): a plan is a named list of limits, one row per
-- plan, so that changing a plan is one row change that reaches every tenant on it. The limits are
-- the admin API's JSON ({"name": ..., "scope": ..., ...}), parsed and checked by the gateway (a row
-- it refuses is skipped and reported, as malformed rule rows are). A tenant on no plan is on the
-- default plan (tollgate.default-plan, else tollgate.default-rule); nothing here changes what
-- today's rules mean.
CREATE TABLE plan (
    name       TEXT PRIMARY KEY,
    limits     JSONB NOT NULL CHECK (jsonb_typeof(limits) = 'array'),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The plan each tenant is on; a plan with tenants on it cannot be deleted.
CREATE TABLE tenant_plan (
    tenant_id  TEXT PRIMARY KEY,
    plan       TEXT NOT NULL REFERENCES plan (name) ON DELETE RESTRICT,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX tenant_plan_plan ON tenant_plan (plan);

-- The change log learns two kinds: 'plan' (the plan's name in plan_name, no tenant) and
-- 'tenant-plan' (the tenant). Rows of the old kinds are unchanged.
ALTER TABLE directory_change DROP CONSTRAINT directory_change_kind_check;
ALTER TABLE directory_change
    ALTER COLUMN kind TYPE VARCHAR(16),
    ALTER COLUMN tenant_id DROP NOT NULL,
    ADD COLUMN plan_name TEXT;
ALTER TABLE directory_change
    ADD CONSTRAINT directory_change_kind_check CHECK (kind IN ('rule', 'key', 'plan', 'tenant-plan')),
    ADD CONSTRAINT directory_change_names_its_row CHECK (
        CASE kind WHEN 'plan' THEN plan_name IS NOT NULL ELSE tenant_id IS NOT NULL END);

CREATE FUNCTION record_plan_change() RETURNS trigger
    SET search_path = "${flyway:defaultSchema}" AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO directory_change (kind, plan_name) VALUES ('plan', OLD.name);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO directory_change (kind, plan_name) VALUES ('plan', NEW.name);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER plan_changed
    AFTER INSERT OR UPDATE OR DELETE ON plan
    FOR EACH ROW EXECUTE FUNCTION record_plan_change();

CREATE FUNCTION record_tenant_plan_change() RETURNS trigger
    SET search_path = "${flyway:defaultSchema}" AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        INSERT INTO directory_change (kind, tenant_id) VALUES ('tenant-plan', OLD.tenant_id);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO directory_change (kind, tenant_id) VALUES ('tenant-plan', NEW.tenant_id);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER tenant_plan_changed
    AFTER INSERT OR UPDATE OR DELETE ON tenant_plan
    FOR EACH ROW EXECUTE FUNCTION record_tenant_plan_change();
