-- The hub chat's conversations (issue 19, Deliver 6): a run is a turn of the person's conversation.
ALTER TABLE "agent_runs" ADD COLUMN "conversation_id" uuid;--> statement-breakpoint
CREATE INDEX "agent_runs_conversation_idx" ON "agent_runs" USING btree ("conversation_id","created_at");
