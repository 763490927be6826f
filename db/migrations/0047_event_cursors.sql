CREATE TABLE "agent_event_cursors" (
	"source" varchar(32) PRIMARY KEY NOT NULL,
	"at" text NOT NULL,
	"last_id" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
DROP TABLE "agents_skills" CASCADE;--> statement-breakpoint
DROP TABLE "agents_tools" CASCADE;
