CREATE TABLE "agents" (
	"id" serial PRIMARY KEY NOT NULL,
	"codename" varchar(64) NOT NULL,
	"nickname" varchar(64) NOT NULL,
	"role" varchar(255) DEFAULT '' NOT NULL,
	"job_mission" text DEFAULT '' NOT NULL,
	CONSTRAINT "agents_codename_unique" UNIQUE("codename")
);
--> statement-breakpoint
CREATE TABLE "agents_react_iterations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"agent" text,
	"run_ref" text DEFAULT '' NOT NULL,
	"step" integer DEFAULT 1 NOT NULL,
	"thought" text DEFAULT '' NOT NULL,
	"action" text DEFAULT '' NOT NULL,
	"observation" text DEFAULT '' NOT NULL,
	"status" text DEFAULT 'done' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "learn_doctrines" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "learn_drills" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"scenario" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "learn_lessons" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text DEFAULT 'failure' NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"check_added" text DEFAULT '' NOT NULL,
	"importance" integer,
	"learnable" boolean DEFAULT false NOT NULL,
	"tags" text[] DEFAULT '{}' NOT NULL,
	"agent" text,
	"recall_count" integer DEFAULT 0 NOT NULL,
	"last_recalled_at" timestamp with time zone,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "learn_lessons_kind_check" CHECK ("learn_lessons"."kind" in ('failure', 'success', 'convention', 'pattern', 'bug')),
	CONSTRAINT "learn_lessons_importance_check" CHECK ("learn_lessons"."importance" is null or "learn_lessons"."importance" between 0 and 10),
	CONSTRAINT "learn_lessons_recall_count_check" CHECK ("learn_lessons"."recall_count" >= 0)
);
--> statement-breakpoint
CREATE TABLE "learn_procedures" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"title" text NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "mem_embeddings" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"source_type" text NOT NULL,
	"source_id" text NOT NULL,
	"title" text DEFAULT '' NOT NULL,
	"content" text NOT NULL,
	"fingerprint" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"embedding" vector(1024) NOT NULL,
	"agent" text,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"tsv" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('french'::regconfig, coalesce(title, '')), 'A') || setweight(to_tsvector('french'::regconfig, content), 'B')) STORED,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mem_embeddings_source_type_check" CHECK ("mem_embeddings"."source_type" in ('scar', 'victory', 'reflex', 'note', 'doctrine', 'project', 'agent', 'drill', 'procedure', 'iteration')),
	CONSTRAINT "mem_embeddings_fingerprint_check" CHECK ("mem_embeddings"."fingerprint" ~ '^[0-9a-f]{64}$')
);
--> statement-breakpoint
CREATE TABLE "mem_notes" (
	"path" text PRIMARY KEY NOT NULL,
	"space" text NOT NULL,
	"type" text,
	"title" text NOT NULL,
	"tags" text[] DEFAULT '{}' NOT NULL,
	"frontmatter" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"body" text NOT NULL,
	"links" text[] DEFAULT '{}' NOT NULL,
	"size" integer NOT NULL,
	"file_modified_at" timestamp (3) with time zone NOT NULL,
	"indexed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mem_notes_space_check" CHECK ("mem_notes"."space" in ('permanent', 'inbox', 'toc', 'daily', 'ephemeral'))
);
--> statement-breakpoint
CREATE TABLE "mem_user_model" (
	"subject" text PRIMARY KEY NOT NULL,
	"communication_style" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"schedules" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"profile" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"skills" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"history" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"preferences" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"private" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "agents_react_iterations_agent_idx" ON "agents_react_iterations" USING btree ("agent");--> statement-breakpoint
CREATE INDEX "learn_lessons_kind_idx" ON "learn_lessons" USING btree ("kind");--> statement-breakpoint
CREATE UNIQUE INDEX "mem_embeddings_source_key" ON "mem_embeddings" USING btree ("source_type","source_id");--> statement-breakpoint
CREATE INDEX "mem_embeddings_embedding_hnsw_idx" ON "mem_embeddings" USING hnsw ("embedding" vector_cosine_ops);--> statement-breakpoint
CREATE INDEX "mem_embeddings_tsv_idx" ON "mem_embeddings" USING gin ("tsv");--> statement-breakpoint
CREATE INDEX "mem_notes_space_idx" ON "mem_notes" USING btree ("space");--> statement-breakpoint
CREATE INDEX "mem_notes_links_idx" ON "mem_notes" USING gin ("links");