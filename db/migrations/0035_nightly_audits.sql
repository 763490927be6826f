CREATE TABLE "learn_obsolescence_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"day" text NOT NULL,
	"verdict" text NOT NULL,
	"signals" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"reason" text DEFAULT '' NOT NULL,
	"source" text DEFAULT 'rules' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "learn_obsolescence_log_verdict_check" CHECK ("learn_obsolescence_log"."verdict" in ('still_relevant', 'possibly_obsolete', 'archive_recommended'))
);
--> statement-breakpoint
CREATE TABLE "learn_persona_drift" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent" text NOT NULL,
	"month" text NOT NULL,
	"score" real NOT NULL,
	"fields" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "learn_persona_drift_score_check" CHECK ("learn_persona_drift"."score" >= 0 and "learn_persona_drift"."score" <= 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX "learn_obsolescence_log_key" ON "learn_obsolescence_log" USING btree ("project_id","day");--> statement-breakpoint
CREATE UNIQUE INDEX "learn_persona_drift_key" ON "learn_persona_drift" USING btree ("agent","month");