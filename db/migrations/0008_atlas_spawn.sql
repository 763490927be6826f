CREATE TABLE "atlas_spawn_events_base" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"spawn_id" uuid NOT NULL,
	"message_id" bigint NOT NULL,
	"seq" integer NOT NULL,
	"event_type" text NOT NULL,
	"subtype" text,
	"tool_name" text,
	"payload" jsonb NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "atlas_spawns" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"message_id" bigint NOT NULL,
	"iteration" integer DEFAULT 1 NOT NULL,
	"previous_spawn_id" uuid,
	"status" text DEFAULT 'queued' NOT NULL,
	"outcome" text,
	"reason" text,
	"job_id" text,
	"queued_by" text NOT NULL,
	"host" text,
	"pid" integer,
	"worker" text,
	"agent_pid" integer,
	"model" text,
	"prompt" text,
	"log_path" text,
	"carried_errors" jsonb,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_at" timestamp with time zone,
	"agent_started_at" timestamp with time zone,
	"agent_ended_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"last_event_at" timestamp with time zone,
	"last_event_type" text,
	"event_count" integer DEFAULT 0 NOT NULL,
	"wrapper_exit_code" integer,
	"result" jsonb,
	"result_source" text,
	"cost_usd" double precision,
	"tokens_in" integer,
	"tokens_out" integer,
	"duration_ms" integer,
	"num_turns" integer,
	"deploy" jsonb,
	"qa" jsonb,
	CONSTRAINT "atlas_spawns_status_check" CHECK ("atlas_spawns"."status" in ('queued', 'running', 'succeeded', 'failed', 'lost', 'cancelled')),
	CONSTRAINT "atlas_spawns_iteration_check" CHECK ("atlas_spawns"."iteration" between 1 and 10)
);
--> statement-breakpoint
ALTER TABLE "atlas_spawn_events_base" ADD CONSTRAINT "atlas_spawn_events_base_spawn_id_atlas_spawns_id_fk" FOREIGN KEY ("spawn_id") REFERENCES "public"."atlas_spawns"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "atlas_spawns" ADD CONSTRAINT "atlas_spawns_message_id_atlas_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."atlas_messages"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "atlas_spawn_events_base_spawn_seq_key" ON "atlas_spawn_events_base" USING btree ("spawn_id","seq");--> statement-breakpoint
CREATE INDEX "atlas_spawn_events_base_message_idx" ON "atlas_spawn_events_base" USING btree ("message_id","id");--> statement-breakpoint
CREATE INDEX "atlas_spawns_message_idx" ON "atlas_spawns" USING btree ("message_id","queued_at");--> statement-breakpoint
CREATE INDEX "atlas_spawns_status_idx" ON "atlas_spawns" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "atlas_spawns_one_live_per_message" ON "atlas_spawns" USING btree ("message_id") WHERE status in ('queued', 'running');