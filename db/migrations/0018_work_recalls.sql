CREATE TABLE "work_recalls" (
	"kind" text NOT NULL,
	"record_id" uuid NOT NULL,
	"query" text NOT NULL,
	"hits" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"mode_used" text,
	"error" text,
	"recalled_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "work_recalls_kind_record_id_pk" PRIMARY KEY("kind","record_id"),
	CONSTRAINT "work_recalls_kind_check" CHECK ("work_recalls"."kind" in ('run', 'chantier', 'question', 'negociation', 'conseil'))
);
