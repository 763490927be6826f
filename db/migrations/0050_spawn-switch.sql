CREATE TABLE "spawn_engine_switch" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"disabled" boolean NOT NULL,
	"changed_by" text NOT NULL,
	"reason" text,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "spawn_engine_switch_changed_idx" ON "spawn_engine_switch" USING btree ("changed_at");