CREATE TABLE "agent_instruction_proposals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"instruction_id" uuid NOT NULL,
	"base_version" integer NOT NULL,
	"body" text NOT NULL,
	"diff" text NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"run_id" uuid,
	"proposed_by" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"decided_by" text,
	"decided_at" timestamp with time zone,
	"applied_version" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_instruction_proposals_status_check" CHECK ("agent_instruction_proposals"."status" in ('pending', 'applied', 'rejected')),
	CONSTRAINT "agent_instruction_proposals_body_check" CHECK (length("agent_instruction_proposals"."body") <= 40000)
);
--> statement-breakpoint
CREATE TABLE "agent_instruction_versions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"instruction_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"body" text NOT NULL,
	"author" text NOT NULL,
	"note" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_instruction_versions_key" UNIQUE("instruction_id","version"),
	CONSTRAINT "agent_instruction_versions_version_check" CHECK ("agent_instruction_versions"."version" >= 1),
	CONSTRAINT "agent_instruction_versions_body_check" CHECK (length("agent_instruction_versions"."body") <= 40000)
);
--> statement-breakpoint
CREATE TABLE "agent_instructions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_email" text NOT NULL,
	"title" text NOT NULL,
	"active" boolean DEFAULT false NOT NULL,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_instructions_active_not_archived" CHECK (not ("agent_instructions"."active" and "agent_instructions"."archived_at" is not null)),
	CONSTRAINT "agent_instructions_title_check" CHECK (length("agent_instructions"."title") between 1 and 200)
);
--> statement-breakpoint
CREATE TABLE "agent_model_choices" (
	"email" text NOT NULL,
	"surface" text NOT NULL,
	"provider" text,
	"model" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_model_choices_email_surface_pk" PRIMARY KEY("email","surface"),
	CONSTRAINT "agent_model_choices_pair_check" CHECK (("agent_model_choices"."provider" is null) = ("agent_model_choices"."model" is null))
);
--> statement-breakpoint
CREATE TABLE "agents_surface_models" (
	"id" serial PRIMARY KEY NOT NULL,
	"surface" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"position" integer NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agents_surface_models_key" UNIQUE("surface","provider","model"),
	CONSTRAINT "agents_surface_models_surface_check" CHECK ("agents_surface_models"."surface" in ('hub_chat', 'custom_agent')),
	CONSTRAINT "agents_surface_models_provider_check" CHECK ("agents_surface_models"."provider" in ('mistral', 'anthropic', 'openai', 'openai-compat', 'offline'))
);
--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "model_note" text;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "runner_host" text;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD COLUMN "runner_pid" integer;--> statement-breakpoint
ALTER TABLE "agent_instruction_proposals" ADD CONSTRAINT "agent_instruction_proposals_instruction_id_agent_instructions_id_fk" FOREIGN KEY ("instruction_id") REFERENCES "public"."agent_instructions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_instruction_proposals" ADD CONSTRAINT "agent_instruction_proposals_run_fk" FOREIGN KEY ("run_id") REFERENCES "public"."agent_runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_instruction_versions" ADD CONSTRAINT "agent_instruction_versions_instruction_id_agent_instructions_id_fk" FOREIGN KEY ("instruction_id") REFERENCES "public"."agent_instructions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_instruction_proposals_doc_idx" ON "agent_instruction_proposals" USING btree ("instruction_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_instructions_one_active_key" ON "agent_instructions" USING btree ("owner_email") WHERE active;--> statement-breakpoint
CREATE INDEX "agent_instructions_owner_idx" ON "agent_instructions" USING btree ("owner_email","updated_at");