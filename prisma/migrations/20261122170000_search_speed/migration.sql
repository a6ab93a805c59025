-- Search answers are cached per process (src/modules/search/search.service.ts, VersionedCache): every
-- write statement to a table they are computed from notifies `table_changed` on commit (the function of
-- the list_totals migration), so every server process drops what a write made stale.
CREATE TRIGGER search_products_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_products FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER search_terms_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_terms FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER search_synonym_groups_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_synonym_groups FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER search_merchandising_rules_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_merchandising_rules FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER search_query_stats_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON search_query_stats FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
