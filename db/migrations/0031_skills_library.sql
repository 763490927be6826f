CREATE TABLE "skill_enablements" (
	"skill_id" bigint NOT NULL,
	"email" text NOT NULL,
	"enabled" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "skill_enablements_skill_id_email_pk" PRIMARY KEY("skill_id","email")
);
--> statement-breakpoint
CREATE TABLE "skill_files" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"skill_id" bigint NOT NULL,
	"path" text NOT NULL,
	"content" text NOT NULL,
	"shareable" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "skill_files_path_check" CHECK ("skill_files"."path" !~ '(^/|\.\.)' and length("skill_files"."path") between 1 and 200)
);
--> statement-breakpoint
CREATE TABLE "skill_runs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"skill_id" bigint NOT NULL,
	"run_id" uuid,
	"email" text NOT NULL,
	"mode" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "skill_versions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"skill_id" bigint NOT NULL,
	"version" integer NOT NULL,
	"description" text NOT NULL,
	"body" text NOT NULL,
	"tags" text[] DEFAULT '{}' NOT NULL,
	"allowed_tools" text[],
	"note" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "owner_email" text;--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "visibility" text DEFAULT 'studio' NOT NULL;--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "origin" text DEFAULT 'hand' NOT NULL;--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "built_in" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "draft" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "allowed_tools" text[];--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "exported_fingerprint" text;--> statement-breakpoint
ALTER TABLE "skills" ADD COLUMN "exported_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "skill_enablements" ADD CONSTRAINT "skill_enablements_skill_id_skills_id_fk" FOREIGN KEY ("skill_id") REFERENCES "public"."skills"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skill_files" ADD CONSTRAINT "skill_files_skill_id_skills_id_fk" FOREIGN KEY ("skill_id") REFERENCES "public"."skills"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skill_runs" ADD CONSTRAINT "skill_runs_skill_id_skills_id_fk" FOREIGN KEY ("skill_id") REFERENCES "public"."skills"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skill_versions" ADD CONSTRAINT "skill_versions_skill_id_skills_id_fk" FOREIGN KEY ("skill_id") REFERENCES "public"."skills"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "skill_files_skill_path_key" ON "skill_files" USING btree ("skill_id","path");--> statement-breakpoint
CREATE INDEX "skill_runs_skill_idx" ON "skill_runs" USING btree ("skill_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "skill_versions_skill_version_key" ON "skill_versions" USING btree ("skill_id","version");--> statement-breakpoint
ALTER TABLE "skills" ADD CONSTRAINT "skills_visibility_check" CHECK ("skills"."visibility" in ('private', 'studio'));--> statement-breakpoint
ALTER TABLE "skills" ADD CONSTRAINT "skills_origin_check" CHECK ("skills"."origin" in ('hand', 'proposal', 'builtin', 'import', 'assistant'));--> statement-breakpoint
-- Skills written before the library (promoted proposals) get their owner and version 1.
UPDATE "skills" SET "owner_email" = "created_by", "origin" = CASE WHEN "source_proposal_id" IS NULL THEN 'hand' ELSE 'proposal' END;--> statement-breakpoint
INSERT INTO "skill_versions" ("skill_id", "version", "description", "body", "tags", "created_by", "created_at")
  SELECT "id", 1, "description", "body", "tags", "created_by", "created_at" FROM "skills";
--> statement-breakpoint
-- The skill router's decision is a run step of its own kind.
ALTER TABLE "agent_run_steps" DROP CONSTRAINT "agent_run_steps_kind_check";--> statement-breakpoint
ALTER TABLE "agent_run_steps" ADD CONSTRAINT "agent_run_steps_kind_check" CHECK ("agent_run_steps"."kind" in ('model', 'tool', 'skills'));
