-- Cached list totals (src/shared/list-totals.ts): every write statement to a table whose lists cache
-- their totals notifies `table_changed` with the table's name. Notifications are sent on commit, folded
-- per transaction, and reach every server process's LISTEN connection; nothing Prisma can express.
CREATE FUNCTION notify_table_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('table_changed', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;

CREATE TRIGGER customers_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON customers FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER products_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON products FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER collection_products_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON collection_products FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER collections_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON collections FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER locations_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON locations FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER store_events_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON store_events FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER draft_orders_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON draft_orders FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER orders_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON orders FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
