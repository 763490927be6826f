CREATE TABLE "skills" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"body" text NOT NULL,
	"tags" text[] DEFAULT '{}' NOT NULL,
	"source_proposal_id" bigint,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "skills_name_check" CHECK ("skills"."name" ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length("skills"."name") <= 64)
);
--> statement-breakpoint
CREATE TABLE "learn_skill_proposals" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"pattern" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"body" text NOT NULL,
	"tags" text[] DEFAULT '{}' NOT NULL,
	"evidence" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"fingerprint" text NOT NULL,
	"proposed_by" text NOT NULL,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"decision_note" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "learn_skill_proposals_status_check" CHECK ("learn_skill_proposals"."status" in ('pending', 'promoted', 'rejected')),
	CONSTRAINT "learn_skill_proposals_decision_check" CHECK (("learn_skill_proposals"."status" = 'pending' and "learn_skill_proposals"."decided_by" is null and "learn_skill_proposals"."decided_at" is null) or ("learn_skill_proposals"."status" <> 'pending' and "learn_skill_proposals"."decided_by" is not null and "learn_skill_proposals"."decided_at" is not null))
);
--> statement-breakpoint
ALTER TABLE "skills" ADD CONSTRAINT "skills_source_proposal_id_learn_skill_proposals_id_fk" FOREIGN KEY ("source_proposal_id") REFERENCES "public"."learn_skill_proposals"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "skills_name_key" ON "skills" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "skills_source_proposal_key" ON "skills" USING btree ("source_proposal_id") WHERE source_proposal_id is not null;--> statement-breakpoint
CREATE INDEX "learn_skill_proposals_status_idx" ON "learn_skill_proposals" USING btree ("status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "learn_skill_proposals_pending_fingerprint_key" ON "learn_skill_proposals" USING btree ("fingerprint") WHERE status = 'pending';