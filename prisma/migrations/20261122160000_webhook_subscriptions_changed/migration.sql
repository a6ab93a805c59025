-- Webhook fan-out asks the per-process cache (src/shared/list-totals.ts `cached`) which event types a
-- project's active subscriptions listen to, so writes in projects without a matching subscription skip
-- the subscription query; every write to the subscriptions notifies `table_changed` on commit.
CREATE TRIGGER webhook_subscriptions_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON webhook_subscriptions FOR EACH STATEMENT EXECUTE FUNCTION notify_table_changed();
