-- The learning loop (issue 18): the scar classifier's columns and the project on the lessons
-- registry, the suggestion log (one per lesson: the engine is idempotent) and the learning
-- audit log, append-only (a trigger refuses UPDATE and DELETE: a decision is never rewritten).
CREATE TABLE "learn_audit" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"subject_kind" text NOT NULL,
	"subject_id" text NOT NULL,
	"action" text NOT NULL,
	"operator" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"diff" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "learn_suggestions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"lesson_id" bigint NOT NULL,
	"destination" text NOT NULL,
	"suggestion" text NOT NULL,
	"diff_before" text DEFAULT '' NOT NULL,
	"diff_after" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"agent" text,
	"tenant_id" uuid,
	"provider" text,
	"model" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	"applied_target" text,
	CONSTRAINT "learn_suggestions_destination_check" CHECK ("learn_suggestions"."destination" in ('directive', 'hooks', 'reflex', 'inbox', 'skill', 'project')),
	CONSTRAINT "learn_suggestions_status_check" CHECK ("learn_suggestions"."status" in ('pending', 'applied', 'modified', 'refused')),
	CONSTRAINT "learn_suggestions_decided_check" CHECK (("learn_suggestions"."status" = 'pending') = ("learn_suggestions"."decided_at" is null))
);
--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD COLUMN "project_id" uuid;--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD COLUMN "error_type" text;--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD COLUMN "severity" integer;--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD COLUMN "classifier_confidence" real;--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD COLUMN "classifier_rationale" text;--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD COLUMN "classifier_tags" text[] DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD COLUMN "classified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD COLUMN "classifier_error" text;--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD COLUMN "classify_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "learn_suggestions" ADD CONSTRAINT "learn_suggestions_lesson_id_learn_lessons_id_fk" FOREIGN KEY ("lesson_id") REFERENCES "public"."learn_lessons"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "learn_audit_subject_idx" ON "learn_audit" USING btree ("subject_kind","subject_id");--> statement-breakpoint
CREATE INDEX "learn_audit_at_idx" ON "learn_audit" USING btree ("at");--> statement-breakpoint
CREATE UNIQUE INDEX "learn_suggestions_lesson_uq" ON "learn_suggestions" USING btree ("lesson_id");--> statement-breakpoint
CREATE INDEX "learn_suggestions_status_idx" ON "learn_suggestions" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "learn_lessons_tenant_idx" ON "learn_lessons" USING btree ("tenant_id");--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD CONSTRAINT "learn_lessons_severity_check" CHECK ("learn_lessons"."severity" is null or "learn_lessons"."severity" between 1 and 5);--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD CONSTRAINT "learn_lessons_confidence_check" CHECK ("learn_lessons"."classifier_confidence" is null or "learn_lessons"."classifier_confidence" between 0 and 1);--> statement-breakpoint
CREATE FUNCTION "learn_audit_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'learn_audit is append-only (% refused)', TG_OP;
END
$$;--> statement-breakpoint
CREATE TRIGGER "learn_audit_no_rewrite" BEFORE UPDATE OR DELETE ON "learn_audit" FOR EACH ROW EXECUTE FUNCTION "learn_audit_append_only"();