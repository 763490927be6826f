CREATE TABLE "agent_event_cursors" (
	"source" varchar(32) PRIMARY KEY NOT NULL,
	"at" text NOT NULL,
	"last_id" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
DROP TABLE "agents_skills" CASCADE;--> statement-breakpoint
DROP TABLE "agents_tools" CASCADE;--> statement-breakpoint
ALTER TABLE "ops_automations" ADD COLUMN "args" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "ops_automations" ADD COLUMN "dry_run" boolean DEFAULT false NOT NULL;
