-- A write to search_products names the products it changed: `search_products:<project id>:<id>,<id>,...`, once
-- per project the statement's rows belong to (the ids while they fit in 7,000 bytes; beyond, the project alone,
-- as other tables notify). A process's product index applies the changed products instead of a rebuild
-- (src/modules/search/product-index.ts). TRUNCATE still notifies the table alone (every project).
CREATE FUNCTION notify_search_products_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  change record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    FOR change IN SELECT project_id, string_agg(product_id, ',' ORDER BY product_id) AS ids
                  FROM (SELECT DISTINCT project_id, product_id FROM new_rows) r GROUP BY 1 LOOP
      PERFORM pg_notify('table_changed', 'search_products:' || change.project_id ||
        CASE WHEN length(change.ids) <= 7000 THEN ':' || change.ids ELSE '' END);
    END LOOP;
  ELSIF TG_OP = 'UPDATE' THEN
    FOR change IN SELECT project_id, string_agg(product_id, ',' ORDER BY product_id) AS ids
                  FROM (SELECT project_id, product_id FROM old_rows UNION SELECT project_id, product_id FROM new_rows) r
                  GROUP BY 1 LOOP
      PERFORM pg_notify('table_changed', 'search_products:' || change.project_id ||
        CASE WHEN length(change.ids) <= 7000 THEN ':' || change.ids ELSE '' END);
    END LOOP;
  ELSE
    FOR change IN SELECT project_id, string_agg(product_id, ',' ORDER BY product_id) AS ids
                  FROM (SELECT DISTINCT project_id, product_id FROM old_rows) r GROUP BY 1 LOOP
      PERFORM pg_notify('table_changed', 'search_products:' || change.project_id ||
        CASE WHEN length(change.ids) <= 7000 THEN ':' || change.ids ELSE '' END);
    END LOOP;
  END IF;
  RETURN NULL;
END;
$$;

DROP TRIGGER search_products_inserted ON search_products;
DROP TRIGGER search_products_updated ON search_products;
DROP TRIGGER search_products_deleted ON search_products;
CREATE TRIGGER search_products_inserted AFTER INSERT ON search_products REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION notify_search_products_changed();
CREATE TRIGGER search_products_updated AFTER UPDATE ON search_products REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION notify_search_products_changed();
CREATE TRIGGER search_products_deleted AFTER DELETE ON search_products REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION notify_search_products_changed();
