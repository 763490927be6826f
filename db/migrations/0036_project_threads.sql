CREATE TABLE "learn_project_threads" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"tenant_id" uuid NOT NULL,
	"day" text NOT NULL,
	"verdict" text NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"message_ids" bigint[] DEFAULT '{}' NOT NULL,
	"reply_ids" bigint[] DEFAULT '{}' NOT NULL,
	"subject" text DEFAULT '' NOT NULL,
	"last_message_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "learn_project_threads_verdict_check" CHECK ("learn_project_threads"."verdict" in ('archive', 'action_required', 'awaiting_reply', 'nothing'))
);
--> statement-breakpoint
ALTER TABLE "learn_project_threads" ADD CONSTRAINT "learn_project_threads_project_id_work_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."work_projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "learn_project_threads" ADD CONSTRAINT "learn_project_threads_tenant_id_clients_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "learn_project_threads_day_key" ON "learn_project_threads" USING btree ("project_id","day");--> statement-breakpoint
CREATE INDEX "learn_project_threads_day_idx" ON "learn_project_threads" USING btree ("day","verdict");