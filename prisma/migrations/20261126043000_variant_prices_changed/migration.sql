-- Search answers for a signed-in customer resolve prices from the hit products' variant prices, kept in the
-- process's search cache: it goes stale on the commit of any statement that adds, removes or re-prices a
-- variant (raw SQL included). Stock updates (inventory_quantity) set no price column, so they notify nothing.
CREATE TRIGGER variant_prices_changed AFTER INSERT OR UPDATE OF price, sale_price, product_id OR DELETE OR TRUNCATE ON variants FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
