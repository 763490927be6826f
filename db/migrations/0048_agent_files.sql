CREATE TABLE "agent_files" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_email" text NOT NULL,
	"run_id" uuid,
	"conversation_id" uuid,
	"direction" text NOT NULL,
	"name" text NOT NULL,
	"content_type" text NOT NULL,
	"size" integer NOT NULL,
	"sha256" text NOT NULL,
	"content" "bytea" NOT NULL,
	"text" text,
	"scan_verdict" text NOT NULL,
	"scanner" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_files_direction_check" CHECK ("agent_files"."direction" in ('in', 'out')),
	CONSTRAINT "agent_files_scan_check" CHECK ("agent_files"."scan_verdict" in ('clean', 'not_scanned')),
	CONSTRAINT "agent_files_size_check" CHECK ("agent_files"."size" >= 0)
);
--> statement-breakpoint
ALTER TABLE "agent_files" ADD CONSTRAINT "agent_files_run_id_agent_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."agent_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_files_run_idx" ON "agent_files" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "agent_files_owner_idx" ON "agent_files" USING btree ("owner_email","created_at");--> statement-breakpoint
CREATE INDEX "agent_files_conversation_idx" ON "agent_files" USING btree ("conversation_id");