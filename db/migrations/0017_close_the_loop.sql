CREATE TABLE "atlas_spawn_lessons" (
	"spawn_id" uuid NOT NULL,
	"lesson_id" bigint NOT NULL,
	"rank" integer NOT NULL,
	"origin" text NOT NULL,
	CONSTRAINT "atlas_spawn_lessons_spawn_id_lesson_id_pk" PRIMARY KEY("spawn_id","lesson_id"),
	CONSTRAINT "atlas_spawn_lessons_rank_check" CHECK ("atlas_spawn_lessons"."rank" >= 1),
	CONSTRAINT "atlas_spawn_lessons_origin_check" CHECK ("atlas_spawn_lessons"."origin" in ('own', 'global'))
);
--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD COLUMN "tenant_id" uuid;--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD COLUMN "source_spawn_id" uuid;--> statement-breakpoint
ALTER TABLE "learn_lessons" ADD COLUMN "recorded_by" text;--> statement-breakpoint
ALTER TABLE "atlas_spawns" ADD COLUMN "agent_codename" text;--> statement-breakpoint
ALTER TABLE "atlas_spawns" ADD COLUMN "prompt_domain" text;--> statement-breakpoint
ALTER TABLE "atlas_spawns" ADD COLUMN "briefing_tokens" integer;--> statement-breakpoint
ALTER TABLE "atlas_spawns" ADD COLUMN "briefing_budget" integer;--> statement-breakpoint
ALTER TABLE "atlas_spawns" ADD COLUMN "briefing" text;--> statement-breakpoint
ALTER TABLE "atlas_spawn_lessons" ADD CONSTRAINT "atlas_spawn_lessons_spawn_id_atlas_spawns_id_fk" FOREIGN KEY ("spawn_id") REFERENCES "public"."atlas_spawns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "atlas_spawn_lessons" ADD CONSTRAINT "atlas_spawn_lessons_lesson_id_learn_lessons_id_fk" FOREIGN KEY ("lesson_id") REFERENCES "public"."learn_lessons"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "atlas_spawn_lessons_lesson_idx" ON "atlas_spawn_lessons" USING btree ("lesson_id");--> statement-breakpoint
CREATE INDEX "learn_lessons_source_spawn_idx" ON "learn_lessons" USING btree ("source_spawn_id");--> statement-breakpoint
CREATE INDEX "learn_lessons_unscored_idx" ON "learn_lessons" USING btree ("created_at") WHERE importance is null and archived_at is null;