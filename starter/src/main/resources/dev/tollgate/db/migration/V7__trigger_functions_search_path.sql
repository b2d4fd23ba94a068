-- The trigger functions name their tables without a schema, so they used to find them through the
-- search_path of whichever session wrote the row. Tollgate's tables may live in a schema of their own
-- (tollgate.datasource.schema): a change written by hand through a session whose search_path does not
-- name it must still land in the change log beside the tables. Each function now searches the schema
-- the migrations ran in (Flyway's default schema: tollgate.datasource.schema, or the connection's).
ALTER FUNCTION record_rule_change() SET search_path = "${flyway:defaultSchema}";
ALTER FUNCTION record_key_change() SET search_path = "${flyway:defaultSchema}";
ALTER FUNCTION notify_directory_change() SET search_path = "${flyway:defaultSchema}";
ALTER FUNCTION check_region_shares() SET search_path = "${flyway:defaultSchema}";
