CREATE TABLE "health_reports" (
	"report_date" date PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"score" real,
	"dimensions" jsonb NOT NULL,
	"care_note" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "health_reports_status_check" CHECK ("health_reports"."status" in ('ok', 'warning', 'critical', 'unknown'))
);
--> statement-breakpoint
CREATE TABLE "maint_coverage" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"night" date NOT NULL,
	"units_total" integer NOT NULL,
	"uncovered_units" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"measured_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "maint_drift_chapters" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"inspection_id" bigint NOT NULL,
	"chapter" text NOT NULL,
	"dead_references" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"score" real NOT NULL
);
--> statement-breakpoint
CREATE TABLE "maint_inspections" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"night" date NOT NULL,
	"phase" text DEFAULT 'initial' NOT NULL,
	"chapters_total" integer NOT NULL,
	"chapters_drifted" integer NOT NULL,
	"dead_references" integer NOT NULL,
	"score" real NOT NULL,
	"inspected_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "maint_inspections_phase_check" CHECK ("maint_inspections"."phase" in ('initial', 'reinspection')),
	CONSTRAINT "maint_inspections_counts_check" CHECK ("maint_inspections"."chapters_total" >= 0 and "maint_inspections"."chapters_drifted" between 0 and "maint_inspections"."chapters_total" and "maint_inspections"."dead_references" >= 0)
);
--> statement-breakpoint
CREATE TABLE "maint_nights" (
	"night" date PRIMARY KEY NOT NULL,
	"exit_code" integer,
	"steps" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "mem_metrics" (
	"day" date PRIMARY KEY NOT NULL,
	"notes" integer NOT NULL,
	"bytes" bigint NOT NULL,
	"index_lines" integer NOT NULL,
	"dead_links" integer NOT NULL,
	"orphans" integer NOT NULL,
	"lessons" integer NOT NULL,
	"embeddings" integer NOT NULL,
	"recalls" bigint NOT NULL,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ops_automations" ADD COLUMN "tenant_id" uuid;--> statement-breakpoint
ALTER TABLE "maint_drift_chapters" ADD CONSTRAINT "maint_drift_chapters_inspection_id_maint_inspections_id_fk" FOREIGN KEY ("inspection_id") REFERENCES "public"."maint_inspections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "maint_coverage_measured_idx" ON "maint_coverage" USING btree ("measured_at");--> statement-breakpoint
CREATE INDEX "maint_drift_chapters_inspection_idx" ON "maint_drift_chapters" USING btree ("inspection_id");--> statement-breakpoint
CREATE INDEX "maint_inspections_inspected_idx" ON "maint_inspections" USING btree ("inspected_at");--> statement-breakpoint
ALTER TABLE "ops_automations" ADD CONSTRAINT "ops_automations_tenant_id_clients_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."clients"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
INSERT INTO "ai_routing" ("feature", "complete_provider", "complete_model", "embed_provider", "embed_model", "params", "note") VALUES
  ('health_care_note', NULL, NULL, NULL, NULL, '{"timeoutMs": 30000}'::jsonb, 'Nightingale''s care note in the health report: at most three sentences, English')
ON CONFLICT DO NOTHING;
