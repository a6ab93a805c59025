-- The tables a customer's price keys and an access token's session are read from carry the table_changed
-- statement trigger too, so the process caches of resolved price keys and of live sessions go stale on the
-- commit of any write to them (raw SQL included). customers, price_lists and price_list_prices have it already.
CREATE TRIGGER customer_addresses_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON customer_addresses FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER customer_groups_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON customer_groups FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER customer_group_members_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON customer_group_members FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER companies_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON companies FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER company_contacts_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON company_contacts FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
CREATE TRIGGER customer_sessions_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON customer_sessions FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
