CREATE TABLE "work_iterations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"task_id" uuid NOT NULL,
	"spawn_id" uuid,
	"step" integer NOT NULL,
	"reasoning" text DEFAULT '' NOT NULL,
	"action" text DEFAULT '' NOT NULL,
	"observation" text DEFAULT '' NOT NULL,
	"outcome" text NOT NULL,
	"agent_codename" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "work_iterations_outcome_check" CHECK ("work_iterations"."outcome" in ('done', 'pass', 'fail')),
	CONSTRAINT "work_iterations_step_check" CHECK ("work_iterations"."step" >= 1)
);
--> statement-breakpoint
CREATE TABLE "work_jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"chantier_id" uuid NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'todo' NOT NULL,
	"scope" text DEFAULT 'code' NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"owner_agent" varchar(64),
	"owner_user_id" uuid,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "work_jobs_id_chantier_project_key" UNIQUE("id","chantier_id","project_id"),
	CONSTRAINT "work_jobs_status_check" CHECK ("work_jobs"."status" in ('todo', 'in_progress', 'review', 'blocked', 'done', 'cancelled')),
	CONSTRAINT "work_jobs_scope_check" CHECK ("work_jobs"."scope" in ('code', 'ops', 'content', 'research', 'review')),
	CONSTRAINT "work_jobs_one_owner_check" CHECK ("work_jobs"."owner_agent" is null or "work_jobs"."owner_user_id" is null)
);
--> statement-breakpoint
CREATE TABLE "work_projects" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"tenant_id" uuid,
	"name" text NOT NULL,
	"repository" text,
	"mission_brief" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"owner_agent" varchar(64),
	"owner_user_id" uuid,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "work_projects_status_check" CHECK ("work_projects"."status" in ('active', 'paused', 'archived')),
	CONSTRAINT "work_projects_one_owner_check" CHECK ("work_projects"."owner_agent" is null or "work_projects"."owner_user_id" is null)
);
--> statement-breakpoint
CREATE TABLE "work_tasks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"chantier_id" uuid NOT NULL,
	"job_id" uuid NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'todo' NOT NULL,
	"scope" text DEFAULT 'code' NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"owner_agent" varchar(64),
	"owner_user_id" uuid,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "work_tasks_status_check" CHECK ("work_tasks"."status" in ('todo', 'in_progress', 'review', 'blocked', 'done', 'cancelled')),
	CONSTRAINT "work_tasks_scope_check" CHECK ("work_tasks"."scope" in ('code', 'ops', 'content', 'research', 'review')),
	CONSTRAINT "work_tasks_position_check" CHECK ("work_tasks"."position" >= 0),
	CONSTRAINT "work_tasks_one_owner_check" CHECK ("work_tasks"."owner_agent" is null or "work_tasks"."owner_user_id" is null)
);
--> statement-breakpoint
CREATE TABLE "work_transitions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"entity" text NOT NULL,
	"entity_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"from_status" text,
	"to_status" text,
	"owner" jsonb,
	"reason" text,
	"actor" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "work_transitions_entity_check" CHECK ("work_transitions"."entity" in ('project', 'chantier', 'job', 'task', 'run', 'question', 'negociation', 'conseil')),
	CONSTRAINT "work_transitions_kind_check" CHECK ("work_transitions"."kind" in ('created', 'transition', 'assignment'))
);
--> statement-breakpoint
ALTER TABLE "work_chantiers" DROP CONSTRAINT "work_chantiers_status_check";--> statement-breakpoint
ALTER TABLE "work_chantiers" ALTER COLUMN "source_message_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "work_chantiers" ALTER COLUMN "last_message_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "work_chantiers" ADD COLUMN "project_id" uuid;--> statement-breakpoint
ALTER TABLE "work_chantiers" ADD CONSTRAINT "work_chantiers_id_project_key" UNIQUE("id","project_id");--> statement-breakpoint
ALTER TABLE "work_chantiers" ADD COLUMN "status_reason" text;--> statement-breakpoint
ALTER TABLE "work_chantiers" ADD COLUMN "owner_agent" varchar(64);--> statement-breakpoint
ALTER TABLE "work_chantiers" ADD COLUMN "owner_user_id" uuid;--> statement-breakpoint
ALTER TABLE "work_conseils" ADD COLUMN "resolution" text;--> statement-breakpoint
ALTER TABLE "work_conseils" ADD COLUMN "resolved_by" text;--> statement-breakpoint
ALTER TABLE "work_conseils" ADD COLUMN "resolved_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "work_conseils" ADD COLUMN "status_reason" text;--> statement-breakpoint
ALTER TABLE "work_negociations" ADD COLUMN "resolution" text;--> statement-breakpoint
ALTER TABLE "work_negociations" ADD COLUMN "resolved_by" text;--> statement-breakpoint
ALTER TABLE "work_negociations" ADD COLUMN "resolved_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "work_negociations" ADD COLUMN "status_reason" text;--> statement-breakpoint
ALTER TABLE "work_questions" ADD COLUMN "resolution" text;--> statement-breakpoint
ALTER TABLE "work_questions" ADD COLUMN "resolved_by" text;--> statement-breakpoint
ALTER TABLE "work_questions" ADD COLUMN "resolved_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "work_questions" ADD COLUMN "status_reason" text;--> statement-breakpoint
ALTER TABLE "work_runs" ADD COLUMN "resolution" text;--> statement-breakpoint
ALTER TABLE "work_runs" ADD COLUMN "resolved_by" text;--> statement-breakpoint
ALTER TABLE "work_runs" ADD COLUMN "resolved_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "work_runs" ADD COLUMN "status_reason" text;--> statement-breakpoint
ALTER TABLE "atlas_spawns" ADD COLUMN "task_id" uuid;--> statement-breakpoint
ALTER TABLE "work_iterations" ADD CONSTRAINT "work_iterations_task_id_work_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."work_tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_iterations" ADD CONSTRAINT "work_iterations_spawn_id_atlas_spawns_id_fk" FOREIGN KEY ("spawn_id") REFERENCES "public"."atlas_spawns"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_jobs" ADD CONSTRAINT "work_jobs_owner_agent_agents_codename_fk" FOREIGN KEY ("owner_agent") REFERENCES "public"."agents"("codename") ON DELETE set null ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "work_jobs" ADD CONSTRAINT "work_jobs_owner_user_id_hub_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."hub_users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_jobs" ADD CONSTRAINT "work_jobs_chantier_project_fk" FOREIGN KEY ("chantier_id","project_id") REFERENCES "public"."work_chantiers"("id","project_id") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "work_projects" ADD CONSTRAINT "work_projects_tenant_id_clients_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_projects" ADD CONSTRAINT "work_projects_owner_agent_agents_codename_fk" FOREIGN KEY ("owner_agent") REFERENCES "public"."agents"("codename") ON DELETE set null ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "work_projects" ADD CONSTRAINT "work_projects_owner_user_id_hub_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."hub_users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_tasks" ADD CONSTRAINT "work_tasks_owner_agent_agents_codename_fk" FOREIGN KEY ("owner_agent") REFERENCES "public"."agents"("codename") ON DELETE set null ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "work_tasks" ADD CONSTRAINT "work_tasks_owner_user_id_hub_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."hub_users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_tasks" ADD CONSTRAINT "work_tasks_job_chantier_project_fk" FOREIGN KEY ("job_id","chantier_id","project_id") REFERENCES "public"."work_jobs"("id","chantier_id","project_id") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
CREATE INDEX "work_iterations_task_idx" ON "work_iterations" USING btree ("task_id","step");--> statement-breakpoint
CREATE INDEX "work_iterations_outcome_idx" ON "work_iterations" USING btree ("outcome","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "work_iterations_spawn_key" ON "work_iterations" USING btree ("spawn_id") WHERE spawn_id is not null;--> statement-breakpoint
CREATE INDEX "work_jobs_chantier_idx" ON "work_jobs" USING btree ("chantier_id","position");--> statement-breakpoint
CREATE INDEX "work_jobs_project_idx" ON "work_jobs" USING btree ("project_id","updated_at");--> statement-breakpoint
CREATE INDEX "work_projects_tenant_idx" ON "work_projects" USING btree ("tenant_id","updated_at");--> statement-breakpoint
CREATE INDEX "work_tasks_board_idx" ON "work_tasks" USING btree ("project_id","status","position");--> statement-breakpoint
CREATE INDEX "work_tasks_job_idx" ON "work_tasks" USING btree ("job_id","position");--> statement-breakpoint
CREATE INDEX "work_transitions_entity_idx" ON "work_transitions" USING btree ("entity","entity_id","at");--> statement-breakpoint
ALTER TABLE "work_chantiers" ADD CONSTRAINT "work_chantiers_project_id_work_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."work_projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_chantiers" ADD CONSTRAINT "work_chantiers_owner_agent_agents_codename_fk" FOREIGN KEY ("owner_agent") REFERENCES "public"."agents"("codename") ON DELETE set null ON UPDATE cascade;--> statement-breakpoint
ALTER TABLE "work_chantiers" ADD CONSTRAINT "work_chantiers_owner_user_id_hub_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."hub_users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "atlas_spawns" ADD CONSTRAINT "atlas_spawns_task_id_work_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."work_tasks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "work_chantiers_project_idx" ON "work_chantiers" USING btree ("project_id","status");--> statement-breakpoint
CREATE INDEX "atlas_spawns_task_idx" ON "atlas_spawns" USING btree ("task_id");--> statement-breakpoint
ALTER TABLE "work_chantiers" ADD CONSTRAINT "work_chantiers_one_owner_check" CHECK ("work_chantiers"."owner_agent" is null or "work_chantiers"."owner_user_id" is null);--> statement-breakpoint
ALTER TABLE "work_chantiers" ADD CONSTRAINT "work_chantiers_status_check" CHECK ("work_chantiers"."status" in ('draft', 'planned', 'active', 'done', 'cancelled', 'rejected'));