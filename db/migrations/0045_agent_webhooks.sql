CREATE TABLE "agent_webhook_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"hook_slug" text NOT NULL,
	"delivery_id" text NOT NULL,
	"forge_event" text NOT NULL,
	"outcome" text NOT NULL,
	"run_id" uuid,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agent_triggers" DROP CONSTRAINT "agent_triggers_kind_check";--> statement-breakpoint
ALTER TABLE "agent_triggers" ADD COLUMN "hook_slug" text;--> statement-breakpoint
ALTER TABLE "agent_triggers" ADD COLUMN "hook_secret" text;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_webhook_deliveries_key" ON "agent_webhook_deliveries" USING btree ("hook_slug","delivery_id");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_triggers_hook_slug_key" ON "agent_triggers" USING btree ("hook_slug");--> statement-breakpoint
ALTER TABLE "agent_triggers" ADD CONSTRAINT "agent_triggers_webhook_check" CHECK ("agent_triggers"."kind" <> 'webhook' or "agent_triggers"."hook_slug" is not null);--> statement-breakpoint
ALTER TABLE "agent_triggers" ADD CONSTRAINT "agent_triggers_kind_check" CHECK ("agent_triggers"."kind" in ('schedule', 'event', 'mention', 'mail', 'webhook'));