CREATE TABLE "ai_consumption" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"call_id" uuid NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"kind" text NOT NULL,
	"provider" text NOT NULL,
	"via" text DEFAULT 'api' NOT NULL,
	"model" text NOT NULL,
	"model_requested" text NOT NULL,
	"feature" text NOT NULL,
	"tenant" text,
	"actor" text,
	"attempt" integer DEFAULT 1 NOT NULL,
	"outcome" text NOT NULL,
	"error" text,
	"http_status" integer,
	"tokens_in" integer DEFAULT 0 NOT NULL,
	"tokens_out" integer DEFAULT 0 NOT NULL,
	"cost_usd" numeric(14, 8) DEFAULT 0 NOT NULL,
	"cost_source" text DEFAULT 'none' NOT NULL,
	"duration_ms" integer NOT NULL,
	"failover_chain" text[] DEFAULT '{}' NOT NULL,
	CONSTRAINT "ai_consumption_outcome_check" CHECK ("ai_consumption"."outcome" in ('ok', 'failed')),
	CONSTRAINT "ai_consumption_kind_check" CHECK ("ai_consumption"."kind" in ('generation', 'completion', 'embedding', 'agent'))
);
--> statement-breakpoint
CREATE TABLE "ai_prices" (
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"input_usd_per_mtok" numeric(12, 6) NOT NULL,
	"output_usd_per_mtok" numeric(12, 6) NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text,
	CONSTRAINT "ai_prices_provider_model_pk" PRIMARY KEY("provider","model"),
	CONSTRAINT "ai_prices_non_negative" CHECK ("ai_prices"."input_usd_per_mtok" >= 0 and "ai_prices"."output_usd_per_mtok" >= 0)
);
--> statement-breakpoint
CREATE TABLE "ai_routing" (
	"feature" text PRIMARY KEY NOT NULL,
	"complete_provider" text,
	"complete_model" text,
	"embed_provider" text,
	"embed_model" text,
	"params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"note" text DEFAULT '' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text
);
--> statement-breakpoint
CREATE INDEX "ai_consumption_at_idx" ON "ai_consumption" USING btree ("at");--> statement-breakpoint
CREATE INDEX "ai_consumption_feature_at_idx" ON "ai_consumption" USING btree ("feature","at");--> statement-breakpoint
CREATE INDEX "ai_consumption_tenant_at_idx" ON "ai_consumption" USING btree ("tenant","at");--> statement-breakpoint
CREATE INDEX "ai_consumption_call_idx" ON "ai_consumption" USING btree ("call_id");