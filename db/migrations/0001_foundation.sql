CREATE TABLE "clients" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"domains" text[] DEFAULT '{}' NOT NULL,
	"contacts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "clients_slug_unique" UNIQUE("slug")
);
--> statement-breakpoint
CREATE TABLE "hub_audit" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"target" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "hub_users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"password_hash" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_login_at" timestamp with time zone,
	CONSTRAINT "hub_users_email_unique" UNIQUE("email"),
	CONSTRAINT "hub_users_role_check" CHECK ("hub_users"."role" in ('founder', 'operator', 'viewer'))
);
--> statement-breakpoint
CREATE TABLE "ops_alerts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"holder" text DEFAULT '' NOT NULL,
	"message" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"raised_at" timestamp with time zone DEFAULT now() NOT NULL,
	"notified_at" timestamp with time zone,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ops_automations" (
	"name" text PRIMARY KEY NOT NULL,
	"schedule" text NOT NULL,
	"scope" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text
);
--> statement-breakpoint
CREATE TABLE "ops_cron_runs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"automation" text NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"args" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	"exit_code" integer,
	"duration_ms" integer,
	"output_tail" text,
	CONSTRAINT "ops_cron_runs_status_check" CHECK ("ops_cron_runs"."status" in ('running', 'ok', 'failed', 'skipped'))
);
--> statement-breakpoint
CREATE TABLE "ops_locks" (
	"name" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"acquired_at" timestamp with time zone NOT NULL,
	"heartbeat_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "hub_audit_at_idx" ON "hub_audit" USING btree ("at");--> statement-breakpoint
CREATE UNIQUE INDEX "ops_alerts_kind_subject_holder_key" ON "ops_alerts" USING btree ("kind","subject","holder");--> statement-breakpoint
CREATE INDEX "ops_cron_runs_automation_started_idx" ON "ops_cron_runs" USING btree ("automation","started_at");