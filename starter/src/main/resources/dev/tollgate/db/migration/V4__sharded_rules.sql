-- A rule's bucket may be split into sub-buckets spread over Redis Cluster nodes (hot tenants).
ALTER TABLE rate_limit_rule ADD COLUMN shards INT NOT NULL DEFAULT 1 CHECK (shards BETWEEN 1 AND 64);
