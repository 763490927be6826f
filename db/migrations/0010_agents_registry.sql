CREATE TABLE "agents_activity" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent" varchar(64) NOT NULL,
	"kind" varchar(64) NOT NULL,
	"summary" text DEFAULT '' NOT NULL,
	"ref" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agents_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent" varchar(64) NOT NULL,
	"event_type" varchar(64) NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agents_experience" (
	"agent" varchar(64) PRIMARY KEY NOT NULL,
	"xp" integer DEFAULT 0 NOT NULL,
	"missions" integer DEFAULT 0 NOT NULL,
	"successes" integer DEFAULT 0 NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agents_experience_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent" varchar(64) NOT NULL,
	"delta" integer NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "agents_heartbeats" (
	"agent" varchar(64) PRIMARY KEY NOT NULL,
	"state" varchar(16) DEFAULT 'idle' NOT NULL,
	"detail" text DEFAULT '' NOT NULL,
	"beat_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agents_heartbeats_state_check" CHECK ("agents_heartbeats"."state" in ('idle', 'working', 'waiting', 'error'))
);
--> statement-breakpoint
CREATE TABLE "agents_relationships" (
	"id" serial PRIMARY KEY NOT NULL,
	"from_agent" varchar(64) NOT NULL,
	"to_agent" varchar(64) NOT NULL,
	"kind" varchar(32) NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"note_en" text DEFAULT '' NOT NULL,
	CONSTRAINT "agents_relationships_not_self" CHECK ("agents_relationships"."from_agent" <> "agents_relationships"."to_agent")
);
--> statement-breakpoint
CREATE TABLE "agents_skills" (
	"agent" varchar(64) NOT NULL,
	"skill" varchar(128) NOT NULL,
	"level" integer DEFAULT 1 NOT NULL,
	CONSTRAINT "agents_skills_agent_skill_pk" PRIMARY KEY("agent","skill")
);
--> statement-breakpoint
CREATE TABLE "agents_tools" (
	"agent" varchar(64) NOT NULL,
	"tool" varchar(128) NOT NULL,
	"access" varchar(16) DEFAULT 'read' NOT NULL,
	CONSTRAINT "agents_tools_agent_tool_pk" PRIMARY KEY("agent","tool"),
	CONSTRAINT "agents_tools_access_check" CHECK ("agents_tools"."access" in ('read', 'write', 'admin'))
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "role_en" varchar(255) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "group_name" varchar(64) DEFAULT 'execution' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "orbite" integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "heritage" varchar(255) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "heritage_en" varchar(255) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "cognitive_frame" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "cognitive_frame_en" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "personality" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "personality_en" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "quote" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "quote_en" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "inspiration" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "inspiration_en" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "proof" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "proof_en" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "job_mission_en" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "job_perimeter" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "job_perimeter_en" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "job_key_checks" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "job_key_checks_en" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "content_md" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "active" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "prompt_domains" varchar(255) DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "auto_spawn" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "spawn_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "error_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "last_spawn_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "last_error_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "created_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "agents_activity" ADD CONSTRAINT "agents_activity_agent_agents_codename_fk" FOREIGN KEY ("agent") REFERENCES "public"."agents"("codename") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "agents_events" ADD CONSTRAINT "agents_events_agent_agents_codename_fk" FOREIGN KEY ("agent") REFERENCES "public"."agents"("codename") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "agents_experience" ADD CONSTRAINT "agents_experience_agent_agents_codename_fk" FOREIGN KEY ("agent") REFERENCES "public"."agents"("codename") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "agents_experience_history" ADD CONSTRAINT "agents_experience_history_agent_agents_codename_fk" FOREIGN KEY ("agent") REFERENCES "public"."agents"("codename") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "agents_heartbeats" ADD CONSTRAINT "agents_heartbeats_agent_agents_codename_fk" FOREIGN KEY ("agent") REFERENCES "public"."agents"("codename") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "agents_relationships" ADD CONSTRAINT "agents_relationships_from_agent_agents_codename_fk" FOREIGN KEY ("from_agent") REFERENCES "public"."agents"("codename") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "agents_relationships" ADD CONSTRAINT "agents_relationships_to_agent_agents_codename_fk" FOREIGN KEY ("to_agent") REFERENCES "public"."agents"("codename") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "agents_skills" ADD CONSTRAINT "agents_skills_agent_agents_codename_fk" FOREIGN KEY ("agent") REFERENCES "public"."agents"("codename") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "agents_tools" ADD CONSTRAINT "agents_tools_agent_agents_codename_fk" FOREIGN KEY ("agent") REFERENCES "public"."agents"("codename") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
CREATE INDEX "agents_activity_agent_idx" ON "agents_activity" USING btree ("agent","created_at");--> statement-breakpoint
CREATE INDEX "agents_events_agent_idx" ON "agents_events" USING btree ("agent","created_at");--> statement-breakpoint
CREATE INDEX "agents_experience_history_agent_idx" ON "agents_experience_history" USING btree ("agent","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "agents_relationships_key" ON "agents_relationships" USING btree ("from_agent","to_agent","kind");--> statement-breakpoint
CREATE INDEX "agents_group_idx" ON "agents" USING btree ("group_name","active");--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_codename_kebab_check" CHECK ("agents"."codename" ~ '^[a-z0-9]+(-[a-z0-9]+)*$');--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_group_name_check" CHECK ("agents"."group_name" in ('direction', 'cadrage', 'execution', 'validation'));--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_orbite_check" CHECK ("agents"."orbite" between 1 and 3);--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_active_check" CHECK ("agents"."active" in (0, 1));--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_auto_spawn_check" CHECK ("agents"."auto_spawn" in (0, 1));--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_counters_check" CHECK ("agents"."spawn_count" >= 0 and "agents"."error_count" >= 0);