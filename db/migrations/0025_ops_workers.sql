CREATE TABLE "ops_workers" (
	"id" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"version" text NOT NULL,
	"mode" text NOT NULL,
	"running" integer DEFAULT 0 NOT NULL,
	"heartbeat_every_ms" integer NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL,
	"stopped_at" timestamp with time zone,
	CONSTRAINT "ops_workers_running_check" CHECK ("ops_workers"."running" >= 0)
);
--> statement-breakpoint
CREATE INDEX "ops_workers_host_heartbeat_idx" ON "ops_workers" USING btree ("host","heartbeat_at");