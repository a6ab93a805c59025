-- Change notifications name the project they concern, so one project's writes leave every other project's
-- per-process caches and indexes alone (src/shared/table-version-cache.ts). Each write statement notifies
-- `table_changed` with `<table>:<project id>` once per project its rows belong to (read from the statement's
-- transition tables), on commit; TRUNCATE notifies `<table>` alone, which means every project.
--
-- Arguments of notify_rows_changed():
--   none                                   the rows carry project_id;
--   'cascades', child, ...                 the rows carry project_id, and deleting them cascades to the children,
--                                          which are notified for the same project (their own trigger cannot find
--                                          the deleted parent);
--   'via', column, parent                  the rows carry no project_id: it is the parent's (parent.id = column);
--                                          rows whose parent is gone were deleted by the parent's cascade, which
--                                          the parent's trigger notifies.
-- Transition tables need one trigger per event (PostgreSQL refuses them on a trigger of several events).
CREATE FUNCTION notify_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  project text;
  child text;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM pg_notify('table_changed', TG_TABLE_NAME);
    RETURN NULL;
  END IF;
  IF TG_NARGS > 0 AND TG_ARGV[0] = 'via' THEN
    FOR project IN EXECUTE format(
      CASE TG_OP
        WHEN 'INSERT' THEN 'SELECT DISTINCT p.project_id FROM new_rows r JOIN %2$I p ON p.id = r.%1$I'
        WHEN 'DELETE' THEN 'SELECT DISTINCT p.project_id FROM old_rows r JOIN %2$I p ON p.id = r.%1$I'
        ELSE 'SELECT DISTINCT p.project_id FROM (SELECT %1$I FROM old_rows UNION SELECT %1$I FROM new_rows) r JOIN %2$I p ON p.id = r.%1$I'
      END, TG_ARGV[1], TG_ARGV[2])
    LOOP
      PERFORM pg_notify('table_changed', TG_TABLE_NAME || ':' || project);
    END LOOP;
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    FOR project IN SELECT DISTINCT project_id FROM new_rows LOOP
      PERFORM pg_notify('table_changed', TG_TABLE_NAME || ':' || project);
    END LOOP;
  ELSIF TG_OP = 'UPDATE' THEN
    FOR project IN SELECT project_id FROM old_rows UNION SELECT project_id FROM new_rows LOOP
      PERFORM pg_notify('table_changed', TG_TABLE_NAME || ':' || project);
    END LOOP;
  ELSE
    FOR project IN SELECT DISTINCT project_id FROM old_rows LOOP
      PERFORM pg_notify('table_changed', TG_TABLE_NAME || ':' || project);
      IF TG_NARGS > 1 AND TG_ARGV[0] = 'cascades' THEN
        FOREACH child IN ARRAY TG_ARGV[1:] LOOP
          PERFORM pg_notify('table_changed', child || ':' || project);
        END LOOP;
      END IF;
    END LOOP;
  END IF;
  RETURN NULL;
END;
$$;

-- A changed row of a table whose trigger filters by column (transition tables allow no column list): its project.
CREATE FUNCTION notify_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('table_changed', TG_TABLE_NAME || ':' || NEW.project_id);
  RETURN NULL;
END;
$$;

-- Replaces each table's statement trigger (same name) by its four: insert, update, delete (per project), truncate.
CREATE PROCEDURE notify_changes_per_project(p_table text, p_args text DEFAULT '') LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('DROP TRIGGER IF EXISTS %I ON %I', p_table || '_changed', p_table);
  EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_changed(%s)', p_table || '_inserted', p_table, p_args);
  EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_changed(%s)', p_table || '_updated', p_table, p_args);
  EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_changed(%s)', p_table || '_deleted', p_table, p_args);
  EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_changed()', p_table || '_truncated', p_table);
END;
$$;

CALL notify_changes_per_project('collections', $a$'cascades', 'collection_products'$a$);
CALL notify_changes_per_project('companies', $a$'cascades', 'company_contacts'$a$);
CALL notify_changes_per_project('customer_groups', $a$'cascades', 'customer_group_members'$a$);
CALL notify_changes_per_project('customers', $a$'cascades', 'customer_addresses', 'customer_group_members'$a$);
CALL notify_changes_per_project('price_lists', $a$'cascades', 'price_list_prices'$a$);
CALL notify_changes_per_project('products', $a$'cascades', 'collection_products'$a$);
CALL notify_changes_per_project('customer_sessions');
CALL notify_changes_per_project('draft_orders');
CALL notify_changes_per_project('locations');
CALL notify_changes_per_project('orders');
CALL notify_changes_per_project('search_merchandising_rules');
CALL notify_changes_per_project('search_products');
CALL notify_changes_per_project('search_query_stats');
CALL notify_changes_per_project('search_suggestion_blocks');
CALL notify_changes_per_project('search_synonym_groups');
CALL notify_changes_per_project('search_terms');
CALL notify_changes_per_project('search_title_words');
CALL notify_changes_per_project('store_events');
CALL notify_changes_per_project('webhook_subscriptions');
CALL notify_changes_per_project('collection_products', $a$'via', 'collection_id', 'collections'$a$);
CALL notify_changes_per_project('company_contacts', $a$'via', 'company_id', 'companies'$a$);
CALL notify_changes_per_project('customer_addresses', $a$'via', 'customer_id', 'customers'$a$);
CALL notify_changes_per_project('customer_group_members', $a$'via', 'group_id', 'customer_groups'$a$);
CALL notify_changes_per_project('price_list_prices', $a$'via', 'price_list_id', 'price_lists'$a$);

-- Variants: only what changes a price notifies (stock updates, on every order, do not). Inserts and deletes per
-- statement as above; an update of a price column per row (a column list and WHEN need a row trigger), folded
-- per transaction by pg_notify. Deleting a variant cascades to its price list prices.
DROP TRIGGER variant_prices_changed ON variants;
CREATE TRIGGER variants_inserted AFTER INSERT ON variants REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_changed();
CREATE TRIGGER variants_deleted AFTER DELETE ON variants REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_changed('cascades', 'price_list_prices');
CREATE TRIGGER variants_truncated AFTER TRUNCATE ON variants FOR EACH STATEMENT EXECUTE FUNCTION notify_rows_changed();
CREATE TRIGGER variants_prices_updated AFTER UPDATE OF price, sale_price, product_id ON variants FOR EACH ROW
  WHEN (OLD.price IS DISTINCT FROM NEW.price OR OLD.sale_price IS DISTINCT FROM NEW.sale_price OR OLD.product_id IS DISTINCT FROM NEW.product_id)
  EXECUTE FUNCTION notify_row_changed();

DROP PROCEDURE notify_changes_per_project(text, text);
DROP FUNCTION notify_table_changed();
