-- atlas_audit is append-only: the database itself refuses to rewrite the pipeline trail.
CREATE OR REPLACE FUNCTION atlas_audit_refuse_change() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'atlas_audit is append-only: % refused', TG_OP;
END;
$$ LANGUAGE plpgsql;
--> statement-breakpoint
CREATE TRIGGER atlas_audit_append_only
  BEFORE UPDATE OR DELETE ON atlas_audit
  FOR EACH ROW EXECUTE FUNCTION atlas_audit_refuse_change();
