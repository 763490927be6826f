CREATE TABLE "agent_custom_drafts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_email" text NOT NULL,
	"run_id" uuid,
	"proposal" jsonb NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"saved_as" varchar(64),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_custom_drafts_status_check" CHECK ("agent_custom_drafts"."status" in ('draft', 'saved', 'discarded'))
);
--> statement-breakpoint
CREATE TABLE "agent_custom_shares" (
	"codename" varchar(64) NOT NULL,
	"email" text NOT NULL,
	"level" text NOT NULL,
	"granted_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_custom_shares_codename_email_pk" PRIMARY KEY("codename","email"),
	CONSTRAINT "agent_custom_shares_level_check" CHECK ("agent_custom_shares"."level" in ('use', 'edit', 'full'))
);
--> statement-breakpoint
CREATE TABLE "agent_studio_policy" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"tools" jsonb,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_studio_policy_single_check" CHECK ("agent_studio_policy"."id" = 1)
);
--> statement-breakpoint
ALTER TABLE "agent_custom_shares" ADD CONSTRAINT "agent_custom_shares_codename_agents_codename_fk" FOREIGN KEY ("codename") REFERENCES "public"."agents"("codename") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
CREATE INDEX "agent_custom_drafts_owner_idx" ON "agent_custom_drafts" USING btree ("owner_email","status");--> statement-breakpoint
CREATE INDEX "agent_custom_shares_email_idx" ON "agent_custom_shares" USING btree ("email");