CREATE TABLE "hub_one_time_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "hub_one_time_links_token_hash_unique" UNIQUE("token_hash"),
	CONSTRAINT "hub_one_time_links_kind_check" CHECK ("hub_one_time_links"."kind" in ('invitation', 'reset'))
);
--> statement-breakpoint
ALTER TABLE "hub_one_time_links" ADD CONSTRAINT "hub_one_time_links_user_id_hub_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."hub_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "hub_one_time_links_user_idx" ON "hub_one_time_links" USING btree ("user_id");