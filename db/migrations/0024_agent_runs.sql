-- Agent runs as rows (issue 19): runs, their steps, the approvals an EXTERNAL_WRITE waits for
-- (72 h) and the standing approvals of an agent (granted and revoked rows kept: the audit trail).
CREATE TABLE "agent_approvals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"run_id" uuid NOT NULL,
	"step_id" bigint NOT NULL,
	"agent" text NOT NULL,
	"tool" text NOT NULL,
	"payload" jsonb NOT NULL,
	"asked_of" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" text,
	"note" text,
	CONSTRAINT "agent_approvals_status_check" CHECK ("agent_approvals"."status" in ('pending', 'approved', 'denied', 'expired')),
	CONSTRAINT "agent_approvals_expiry_check" CHECK ("agent_approvals"."expires_at" > "agent_approvals"."requested_at")
);
--> statement-breakpoint
CREATE TABLE "agent_run_steps" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"run_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"kind" text NOT NULL,
	"thought" text,
	"tool" text,
	"tool_call_id" text,
	"tool_class" text,
	"input" jsonb,
	"output" text,
	"status" text NOT NULL,
	"error" text,
	"sources" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"skills" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"write" jsonb,
	"undone_at" timestamp with time zone,
	"undone_by" text,
	"call_id" uuid,
	"provider" text,
	"model" text,
	"tokens_in" integer DEFAULT 0 NOT NULL,
	"tokens_out" integer DEFAULT 0 NOT NULL,
	"duration_ms" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_run_steps_run_seq_key" UNIQUE("run_id","seq"),
	CONSTRAINT "agent_run_steps_kind_check" CHECK ("agent_run_steps"."kind" in ('model', 'tool')),
	CONSTRAINT "agent_run_steps_status_check" CHECK ("agent_run_steps"."status" in ('ok', 'error', 'denied', 'awaiting_approval', 'rejected', 'expired')),
	CONSTRAINT "agent_run_steps_tool_class_check" CHECK ("agent_run_steps"."tool_class" is null or "agent_run_steps"."tool_class" in ('READ', 'WRITE', 'DESTRUCTIVE', 'EXTERNAL_WRITE'))
);
--> statement-breakpoint
CREATE TABLE "agent_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"surface" text NOT NULL,
	"trigger" text NOT NULL,
	"agent" text NOT NULL,
	"acting_user_id" uuid,
	"acting_email" text NOT NULL,
	"acting_role" text NOT NULL,
	"owner_email" text NOT NULL,
	"regime" text NOT NULL,
	"request" text NOT NULL,
	"context" jsonb NOT NULL,
	"prompt_layers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"conversation" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"answer" text,
	"error" text,
	"provider" text,
	"model" text,
	"iterations" integer DEFAULT 0 NOT NULL,
	"tokens_in" integer DEFAULT 0 NOT NULL,
	"tokens_out" integer DEFAULT 0 NOT NULL,
	"cost_usd" numeric(14, 8) DEFAULT 0 NOT NULL,
	"parent_run_id" uuid,
	"rerun_of" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "agent_runs_status_check" CHECK ("agent_runs"."status" in ('running', 'awaiting_approval', 'succeeded', 'failed', 'stopped')),
	CONSTRAINT "agent_runs_regime_check" CHECK ("agent_runs"."regime" in ('user', 'allowlist')),
	CONSTRAINT "agent_runs_trigger_check" CHECK ("agent_runs"."trigger" in ('interactive', 'autonomous', 'rerun')),
	CONSTRAINT "agent_runs_counts_check" CHECK ("agent_runs"."tokens_in" >= 0 and "agent_runs"."tokens_out" >= 0 and "agent_runs"."iterations" >= 0)
);
--> statement-breakpoint
CREATE TABLE "agent_standing_approvals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"agent" text NOT NULL,
	"tool" text NOT NULL,
	"granted_by" text NOT NULL,
	"granted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_by" text,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "agent_approvals" ADD CONSTRAINT "agent_approvals_run_id_agent_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."agent_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_approvals" ADD CONSTRAINT "agent_approvals_step_id_agent_run_steps_id_fk" FOREIGN KEY ("step_id") REFERENCES "public"."agent_run_steps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_run_steps" ADD CONSTRAINT "agent_run_steps_run_id_agent_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."agent_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD CONSTRAINT "agent_runs_parent_fk" FOREIGN KEY ("parent_run_id") REFERENCES "public"."agent_runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_runs" ADD CONSTRAINT "agent_runs_rerun_of_fk" FOREIGN KEY ("rerun_of") REFERENCES "public"."agent_runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_approvals_step_key" ON "agent_approvals" USING btree ("step_id");--> statement-breakpoint
CREATE INDEX "agent_approvals_pending_idx" ON "agent_approvals" USING btree ("asked_of","status");--> statement-breakpoint
CREATE INDEX "agent_run_steps_call_idx" ON "agent_run_steps" USING btree ("call_id");--> statement-breakpoint
CREATE INDEX "agent_runs_person_idx" ON "agent_runs" USING btree ("acting_email","created_at");--> statement-breakpoint
CREATE INDEX "agent_runs_status_idx" ON "agent_runs" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_standing_approvals_live_key" ON "agent_standing_approvals" USING btree ("agent","tool") WHERE revoked_at is null;