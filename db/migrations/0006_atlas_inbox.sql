CREATE TABLE "atlas_attachments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"message_id" bigint NOT NULL,
	"position" integer NOT NULL,
	"filename" text,
	"content_type" text NOT NULL,
	"content_id" text,
	"inline" boolean DEFAULT false NOT NULL,
	"size_bytes" bigint NOT NULL,
	"sha256" text NOT NULL,
	"verdict" text DEFAULT 'pending' NOT NULL,
	"signature" text,
	"verdict_reason" text,
	"scanner" text,
	"scanned_at" timestamp with time zone,
	CONSTRAINT "atlas_attachments_verdict_check" CHECK ("atlas_attachments"."verdict" in ('pending', 'clean', 'infected', 'error'))
);
--> statement-breakpoint
CREATE TABLE "atlas_audit" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"message_id" bigint,
	"action" text NOT NULL,
	"actor" text NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "atlas_calibration_reports" (
	"month" text PRIMARY KEY NOT NULL,
	"generated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"report" jsonb NOT NULL,
	CONSTRAINT "atlas_calibration_reports_month_check" CHECK ("atlas_calibration_reports"."month" ~ '^[0-9]{4}-(0[1-9]|1[0-2])$')
);
--> statement-breakpoint
CREATE TABLE "atlas_inbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"message_id" bigint NOT NULL,
	"status" text DEFAULT 'received' NOT NULL,
	"status_reason" text,
	"needs_human" boolean DEFAULT false NOT NULL,
	"intent" text,
	"confidence" real,
	"provider" text,
	"model" text,
	"reasoning" text,
	"tenant_id" uuid,
	"materialised_kind" text,
	"materialised_id" uuid,
	"classify_attempts" integer DEFAULT 0 NOT NULL,
	"revision" integer DEFAULT 0 NOT NULL,
	"reclassify_requested_by" text,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"classified_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "atlas_inbox_status_check" CHECK ("atlas_inbox"."status" in ('received', 'blocked_unsafe', 'quarantined', 'classification_failed', 'classified', 'spawn_queued', 'spawning', 'deploying', 'qa', 'actioned', 'escalated', 'spawn_failed')),
	CONSTRAINT "atlas_inbox_intent_check" CHECK ("atlas_inbox"."intent" is null or "atlas_inbox"."intent" in ('run', 'chantier', 'question', 'noise', 'negociation', 'conseil')),
	CONSTRAINT "atlas_inbox_confidence_check" CHECK ("atlas_inbox"."confidence" is null or ("atlas_inbox"."confidence" >= 0 and "atlas_inbox"."confidence" <= 1)),
	CONSTRAINT "atlas_inbox_materialised_check" CHECK (("atlas_inbox"."materialised_kind" is null) = ("atlas_inbox"."materialised_id" is null))
);
--> statement-breakpoint
CREATE TABLE "atlas_mailbox_state" (
	"mailbox" text PRIMARY KEY NOT NULL,
	"uid_validity" bigint NOT NULL,
	"last_uid" bigint DEFAULT 0 NOT NULL,
	"last_polled_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "atlas_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"dedupe_key" text NOT NULL,
	"message_id" text,
	"raw_sha256" text NOT NULL,
	"raw_size" integer NOT NULL,
	"mailbox" text NOT NULL,
	"uid_validity" bigint,
	"uid" bigint,
	"from_address" text,
	"from_name" text,
	"to_addresses" text[] DEFAULT '{}' NOT NULL,
	"cc_addresses" text[] DEFAULT '{}' NOT NULL,
	"reply_to" text,
	"subject" text DEFAULT '' NOT NULL,
	"sent_at" timestamp with time zone,
	"in_reply_to" text,
	"thread_references" text[] DEFAULT '{}' NOT NULL,
	"headers" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"text_body" text DEFAULT '' NOT NULL,
	"html_body" text,
	"parse_warnings" text[] DEFAULT '{}' NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "atlas_reply_drafts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"message_id" bigint NOT NULL,
	"body" text NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_by" text,
	"sent_at" timestamp with time zone,
	CONSTRAINT "atlas_reply_drafts_status_check" CHECK ("atlas_reply_drafts"."status" in ('draft', 'sent', 'discarded'))
);
--> statement-breakpoint
CREATE TABLE "work_chantiers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"source_message_id" bigint NOT NULL,
	"last_message_id" bigint NOT NULL,
	"message_count" integer DEFAULT 1 NOT NULL,
	"tenant_id" uuid,
	"title" text NOT NULL,
	"requester_email" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"brief" text NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	CONSTRAINT "work_chantiers_status_check" CHECK ("work_chantiers"."status" in ('draft', 'active', 'done', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "work_conseils" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"source_message_id" bigint NOT NULL,
	"last_message_id" bigint NOT NULL,
	"message_count" integer DEFAULT 1 NOT NULL,
	"tenant_id" uuid,
	"title" text NOT NULL,
	"requester_email" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"request" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	CONSTRAINT "work_conseils_status_check" CHECK ("work_conseils"."status" in ('open', 'given', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "work_negociations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"source_message_id" bigint NOT NULL,
	"last_message_id" bigint NOT NULL,
	"message_count" integer DEFAULT 1 NOT NULL,
	"tenant_id" uuid,
	"title" text NOT NULL,
	"requester_email" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"prospect_domain" text,
	"summary" text NOT NULL,
	"status" text DEFAULT 'new' NOT NULL,
	CONSTRAINT "work_negociations_status_check" CHECK ("work_negociations"."status" in ('new', 'in_progress', 'won', 'lost', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "work_questions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"source_message_id" bigint NOT NULL,
	"last_message_id" bigint NOT NULL,
	"message_count" integer DEFAULT 1 NOT NULL,
	"tenant_id" uuid,
	"title" text NOT NULL,
	"requester_email" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"question" text NOT NULL,
	"draft_answer" text,
	"draft_id" bigint,
	"status" text DEFAULT 'open' NOT NULL,
	CONSTRAINT "work_questions_status_check" CHECK ("work_questions"."status" in ('open', 'answered', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "work_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"source_message_id" bigint NOT NULL,
	"last_message_id" bigint NOT NULL,
	"message_count" integer DEFAULT 1 NOT NULL,
	"tenant_id" uuid,
	"title" text NOT NULL,
	"requester_email" text,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"request" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	CONSTRAINT "work_runs_status_check" CHECK ("work_runs"."status" in ('open', 'in_progress', 'done', 'cancelled'))
);
--> statement-breakpoint
ALTER TABLE "atlas_attachments" ADD CONSTRAINT "atlas_attachments_message_id_atlas_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "atlas_audit" ADD CONSTRAINT "atlas_audit_message_id_atlas_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "atlas_inbox" ADD CONSTRAINT "atlas_inbox_message_id_atlas_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "atlas_inbox" ADD CONSTRAINT "atlas_inbox_tenant_id_clients_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "atlas_reply_drafts" ADD CONSTRAINT "atlas_reply_drafts_message_id_atlas_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_chantiers" ADD CONSTRAINT "work_chantiers_source_message_id_atlas_messages_id_fk" FOREIGN KEY ("source_message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_chantiers" ADD CONSTRAINT "work_chantiers_last_message_id_atlas_messages_id_fk" FOREIGN KEY ("last_message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_chantiers" ADD CONSTRAINT "work_chantiers_tenant_id_clients_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_conseils" ADD CONSTRAINT "work_conseils_source_message_id_atlas_messages_id_fk" FOREIGN KEY ("source_message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_conseils" ADD CONSTRAINT "work_conseils_last_message_id_atlas_messages_id_fk" FOREIGN KEY ("last_message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_conseils" ADD CONSTRAINT "work_conseils_tenant_id_clients_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_negociations" ADD CONSTRAINT "work_negociations_source_message_id_atlas_messages_id_fk" FOREIGN KEY ("source_message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_negociations" ADD CONSTRAINT "work_negociations_last_message_id_atlas_messages_id_fk" FOREIGN KEY ("last_message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_negociations" ADD CONSTRAINT "work_negociations_tenant_id_clients_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_questions" ADD CONSTRAINT "work_questions_source_message_id_atlas_messages_id_fk" FOREIGN KEY ("source_message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_questions" ADD CONSTRAINT "work_questions_last_message_id_atlas_messages_id_fk" FOREIGN KEY ("last_message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_questions" ADD CONSTRAINT "work_questions_tenant_id_clients_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_runs" ADD CONSTRAINT "work_runs_source_message_id_atlas_messages_id_fk" FOREIGN KEY ("source_message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_runs" ADD CONSTRAINT "work_runs_last_message_id_atlas_messages_id_fk" FOREIGN KEY ("last_message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "work_runs" ADD CONSTRAINT "work_runs_tenant_id_clients_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "atlas_attachments_message_position_key" ON "atlas_attachments" USING btree ("message_id","position");--> statement-breakpoint
CREATE INDEX "atlas_audit_message_idx" ON "atlas_audit" USING btree ("message_id","id");--> statement-breakpoint
CREATE INDEX "atlas_audit_action_at_idx" ON "atlas_audit" USING btree ("action","at");--> statement-breakpoint
CREATE UNIQUE INDEX "atlas_inbox_message_id_key" ON "atlas_inbox" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "atlas_inbox_status_idx" ON "atlas_inbox" USING btree ("status","updated_at");--> statement-breakpoint
CREATE INDEX "atlas_inbox_updated_at_idx" ON "atlas_inbox" USING btree ("updated_at");--> statement-breakpoint
CREATE UNIQUE INDEX "atlas_messages_dedupe_key_key" ON "atlas_messages" USING btree ("dedupe_key");--> statement-breakpoint
CREATE INDEX "atlas_messages_message_id_idx" ON "atlas_messages" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "atlas_messages_received_at_idx" ON "atlas_messages" USING btree ("received_at");--> statement-breakpoint
CREATE INDEX "atlas_reply_drafts_message_idx" ON "atlas_reply_drafts" USING btree ("message_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "work_chantiers_source_message_key" ON "work_chantiers" USING btree ("source_message_id");--> statement-breakpoint
CREATE INDEX "work_chantiers_tenant_idx" ON "work_chantiers" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "work_conseils_source_message_key" ON "work_conseils" USING btree ("source_message_id");--> statement-breakpoint
CREATE UNIQUE INDEX "work_negociations_source_message_key" ON "work_negociations" USING btree ("source_message_id");--> statement-breakpoint
CREATE UNIQUE INDEX "work_questions_source_message_key" ON "work_questions" USING btree ("source_message_id");--> statement-breakpoint
CREATE INDEX "work_questions_tenant_idx" ON "work_questions" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "work_runs_source_message_key" ON "work_runs" USING btree ("source_message_id");--> statement-breakpoint
CREATE INDEX "work_runs_tenant_idx" ON "work_runs" USING btree ("tenant_id","created_at");