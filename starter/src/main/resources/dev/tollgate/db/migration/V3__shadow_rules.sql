-- Shadow (dry-run) rules: evaluated and counted, never rejecting.
ALTER TABLE rate_limit_rule ADD COLUMN shadow BOOLEAN NOT NULL DEFAULT false;
