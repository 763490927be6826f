ALTER TABLE "atlas_inbox" DROP CONSTRAINT "atlas_inbox_status_check";--> statement-breakpoint
ALTER TABLE "atlas_inbox" ADD COLUMN "admission" text;--> statement-breakpoint
ALTER TABLE "atlas_inbox" ADD COLUMN "admission_reason" text;--> statement-breakpoint
ALTER TABLE "atlas_inbox" ADD COLUMN "admission_by" text;--> statement-breakpoint
ALTER TABLE "atlas_inbox" ADD COLUMN "admission_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "atlas_messages" ADD COLUMN "sender_auth" jsonb;--> statement-breakpoint
ALTER TABLE "atlas_inbox" ADD CONSTRAINT "atlas_inbox_admission_check" CHECK ("atlas_inbox"."admission" is null or "atlas_inbox"."admission" in ('auto', 'awaiting', 'approved', 'rejected'));--> statement-breakpoint
ALTER TABLE "atlas_inbox" ADD CONSTRAINT "atlas_inbox_status_check" CHECK ("atlas_inbox"."status" in ('received', 'blocked_unsafe', 'quarantined', 'classification_failed', 'classified', 'awaiting_approval', 'rejected', 'spawn_queued', 'spawning', 'deploying', 'qa', 'actioned', 'escalated', 'spawn_failed'));--> statement-breakpoint
-- Messages already past admission when it came in were admitted under the old rule: kept.
UPDATE "atlas_inbox" SET "admission" = 'auto', "admission_reason" = 'admitted before sender authentication existed'
WHERE "status" IN ('spawn_queued', 'spawning', 'deploying', 'qa', 'actioned', 'escalated', 'spawn_failed');--> statement-breakpoint
-- Classified spawn candidates whose sender was never authenticated wait for a person.
UPDATE "atlas_inbox" SET "status" = 'awaiting_approval', "admission" = 'awaiting', "needs_human" = true,
  "status_reason" = 'classified before sender authentication existed: an operator approves or rejects it in the hub',
  "admission_reason" = 'classified before sender authentication existed', "revision" = "revision" + 1, "updated_at" = now()
WHERE "status" = 'classified' AND "intent" IN ('run', 'chantier', 'question', 'negociation');
