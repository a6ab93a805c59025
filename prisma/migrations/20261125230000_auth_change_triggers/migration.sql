-- Every process caches API keys with their projects (the auth cache) and drops an entry when told on the
-- auth_changed channel. The service notifies on its own writes; these triggers notify on every other write
-- too (a key revoked or a project suspended directly in SQL), on commit, so no process serves a stale key.
CREATE FUNCTION notify_api_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changed', 'key:' || OLD.id);
  RETURN NULL;
END $$;

CREATE FUNCTION notify_project_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changed', 'project:' || OLD.id);
  RETURN NULL;
END $$;

CREATE TRIGGER api_keys_auth_changed AFTER UPDATE OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION notify_api_key_changed();

CREATE TRIGGER projects_auth_changed AFTER UPDATE OR DELETE ON projects
  FOR EACH ROW EXECUTE FUNCTION notify_project_changed();
