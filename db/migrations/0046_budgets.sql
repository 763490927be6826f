CREATE TABLE "ai_budgets" (
	"subject_kind" text NOT NULL,
	"subject" text NOT NULL,
	"tokens_monthly" bigint,
	"cost_usd_monthly" numeric(12, 2),
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_by" text NOT NULL,
	CONSTRAINT "ai_budgets_subject_kind_subject_pk" PRIMARY KEY("subject_kind","subject"),
	CONSTRAINT "ai_budgets_kind_check" CHECK ("ai_budgets"."subject_kind" in ('person', 'agent')),
	CONSTRAINT "ai_budgets_limits_check" CHECK (coalesce("ai_budgets"."tokens_monthly", 0) >= 0 and coalesce("ai_budgets"."cost_usd_monthly", 0) >= 0)
);
--> statement-breakpoint
ALTER TABLE "ai_consumption" ADD COLUMN "agent" text;--> statement-breakpoint
ALTER TABLE "ai_consumption" ADD COLUMN "bucket" text DEFAULT 'premium' NOT NULL;--> statement-breakpoint
ALTER TABLE "ai_prices" ADD COLUMN "included" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "ai_consumption_actor_at_idx" ON "ai_consumption" USING btree ("actor","at");--> statement-breakpoint
CREATE INDEX "ai_consumption_agent_at_idx" ON "ai_consumption" USING btree ("agent","at");--> statement-breakpoint
ALTER TABLE "ai_consumption" ADD CONSTRAINT "ai_consumption_bucket_check" CHECK ("ai_consumption"."bucket" in ('allowance', 'premium'));