-- search_terms names the terms a statement changed, as search_products names its products (20261129070000):
-- `search_terms:<project id>:<term>,<term>,...` while they fit in 7,000 bytes and none holds a comma; beyond, the
-- project alone. One function for both: its argument is the column that names a row.
CREATE FUNCTION notify_rows_named() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  change record;
  source text;
BEGIN
  source := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT project_id, %1$I AS k FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT project_id, %1$I AS k FROM old_rows'
    ELSE 'SELECT project_id, %1$I AS k FROM old_rows UNION SELECT project_id, %1$I FROM new_rows'
  END;
  FOR change IN EXECUTE format(
    'SELECT project_id, string_agg(k, '','' ORDER BY k) AS keys, bool_and(strpos(k, '','') = 0) AS plain
     FROM (SELECT DISTINCT project_id, k FROM (' || source || ') r) d GROUP BY 1', TG_ARGV[0])
  LOOP
    PERFORM pg_notify('table_changed', TG_TABLE_NAME || ':' || change.project_id ||
      CASE WHEN change.plain AND length(change.keys) <= 7000 THEN ':' || change.keys ELSE '' END);
  END LOOP;
  RETURN NULL;
END;
$$;

CREATE PROCEDURE notify_rows_named_on(p_table text, p_column text) LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', p_table || '_inserted', p_table);
  EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', p_table || '_updated', p_table);
  EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', p_table || '_deleted', p_table);
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_named(%L)', p_table || '_inserted', p_table, p_column);
  EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_named(%L)', p_table || '_updated', p_table, p_column);
  EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_named(%L)', p_table || '_deleted', p_table, p_column);
END;
$$;

CALL notify_rows_named_on('search_products', 'product_id');
CALL notify_rows_named_on('search_terms', 'term');
DROP PROCEDURE notify_rows_named_on(text, text);
DROP FUNCTION notify_search_products_changed();
