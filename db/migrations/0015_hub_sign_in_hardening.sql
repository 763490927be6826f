ALTER TABLE "hub_users" ADD COLUMN "session_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE TABLE "hub_sign_in_failures" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"email" text NOT NULL,
	"address" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "hub_sign_in_failures_email_idx" ON "hub_sign_in_failures" USING btree ("email","at");--> statement-breakpoint
CREATE INDEX "hub_sign_in_failures_address_idx" ON "hub_sign_in_failures" USING btree ("address","at");
