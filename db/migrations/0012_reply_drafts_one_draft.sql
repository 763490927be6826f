-- One reply draft per message at a time. Before, a re-spawn could leave several drafts: the
-- newest stays the draft, the older ones are discarded (kept, with their text).
UPDATE "atlas_reply_drafts" AS d SET "status" = 'discarded', "updated_at" = now()
WHERE d."status" = 'draft' AND EXISTS (
  SELECT 1 FROM "atlas_reply_drafts" AS n WHERE n."message_id" = d."message_id" AND n."status" = 'draft' AND n."id" > d."id");--> statement-breakpoint
CREATE UNIQUE INDEX "atlas_reply_drafts_one_draft_idx" ON "atlas_reply_drafts" USING btree ("message_id") WHERE "atlas_reply_drafts"."status" = 'draft';
