CREATE TABLE "learn_nightly_marks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"feature" text NOT NULL,
	"fingerprint" text NOT NULL,
	"ref" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "learn_nightly_marks_key" ON "learn_nightly_marks" USING btree ("feature","fingerprint");