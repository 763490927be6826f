CREATE TABLE "agent_custom" (
	"codename" varchar(64) PRIMARY KEY NOT NULL,
	"owner_email" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"instruction_id" uuid,
	"skill_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"allowlist" jsonb DEFAULT '{"tools":[],"tenants":[],"documents":[],"skills":[]}'::jsonb NOT NULL,
	"model" jsonb DEFAULT '{"provider":"auto"}'::jsonb NOT NULL,
	"can_delegate" boolean DEFAULT false NOT NULL,
	"max_depth" integer DEFAULT 3 NOT NULL,
	"runs_per_hour" integer DEFAULT 6 NOT NULL,
	"killed" boolean DEFAULT false NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_custom_depth_check" CHECK ("agent_custom"."max_depth" between 1 and 5),
	CONSTRAINT "agent_custom_rate_check" CHECK ("agent_custom"."runs_per_hour" between 0 and 120)
);
--> statement-breakpoint
CREATE TABLE "agent_custom_versions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"codename" varchar(64) NOT NULL,
	"version" integer NOT NULL,
	"config" jsonb NOT NULL,
	"saved_by" text NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agent_trigger_fires" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"trigger_id" bigint NOT NULL,
	"codename" varchar(64) NOT NULL,
	"fingerprint" text NOT NULL,
	"outcome" text NOT NULL,
	"run_id" uuid,
	"detail" text DEFAULT '' NOT NULL,
	"fired_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_trigger_fires_outcome_check" CHECK ("agent_trigger_fires"."outcome" in ('fired', 'capped', 'killed', 'self', 'busy', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "agent_triggers" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"codename" varchar(64) NOT NULL,
	"kind" text NOT NULL,
	"cron" text,
	"event" text,
	"filters" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_triggers_kind_check" CHECK ("agent_triggers"."kind" in ('schedule', 'event', 'mention', 'mail')),
	CONSTRAINT "agent_triggers_schedule_check" CHECK ("agent_triggers"."kind" <> 'schedule' or "agent_triggers"."cron" is not null)
);
--> statement-breakpoint
ALTER TABLE "agent_custom" ADD CONSTRAINT "agent_custom_codename_agents_codename_fk" FOREIGN KEY ("codename") REFERENCES "public"."agents"("codename") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "agent_custom" ADD CONSTRAINT "agent_custom_instruction_id_agent_instructions_id_fk" FOREIGN KEY ("instruction_id") REFERENCES "public"."agent_instructions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_custom_versions" ADD CONSTRAINT "agent_custom_versions_codename_agents_codename_fk" FOREIGN KEY ("codename") REFERENCES "public"."agents"("codename") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "agent_trigger_fires" ADD CONSTRAINT "agent_trigger_fires_trigger_id_agent_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."agent_triggers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_triggers" ADD CONSTRAINT "agent_triggers_codename_agents_codename_fk" FOREIGN KEY ("codename") REFERENCES "public"."agents"("codename") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_custom_versions_key" ON "agent_custom_versions" USING btree ("codename","version");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_trigger_fires_key" ON "agent_trigger_fires" USING btree ("trigger_id","fingerprint");--> statement-breakpoint
CREATE INDEX "agent_trigger_fires_agent_idx" ON "agent_trigger_fires" USING btree ("codename","fired_at");--> statement-breakpoint
CREATE INDEX "agent_triggers_agent_idx" ON "agent_triggers" USING btree ("codename");