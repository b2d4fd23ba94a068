-- Gateway instances announce themselves here as well as in Redis, so that the local fallback can
-- learn how many share the limits when Redis cannot be reached. last_seen is the database's own
-- clock; a row silent for an hour is deleted by the instances as they beat. No trigger: heartbeats
-- are not directory changes and notify nobody. fleet names the Redis the instances share
-- (tollgate.fallback.fleet): instances are counted together only with those of the same fleet.
CREATE TABLE gateway_instance (
    fleet       TEXT         NOT NULL,
    instance_id TEXT         NOT NULL,
    last_seen   TIMESTAMPTZ  NOT NULL,
    PRIMARY KEY (fleet, instance_id)
);
CREATE INDEX gateway_instance_last_seen ON gateway_instance (fleet, last_seen);
