-- hub_audit is append-only: the database itself refuses to rewrite history.
CREATE OR REPLACE FUNCTION hub_audit_refuse_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'hub_audit is append-only: % refused', TG_OP;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER hub_audit_append_only
  BEFORE UPDATE OR DELETE ON hub_audit
  FOR EACH ROW EXECUTE FUNCTION hub_audit_refuse_change();
