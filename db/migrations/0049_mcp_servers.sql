CREATE TABLE "mcp_servers" (
	"name" varchar(24) PRIMARY KEY NOT NULL,
	"transport" text NOT NULL,
	"command" text,
	"args" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"url" text,
	"env_names" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"header_env_name" text,
	"tenants" jsonb,
	"enabled" boolean DEFAULT true NOT NULL,
	"status" text DEFAULT 'down' NOT NULL,
	"last_error" text,
	"restarts" integer DEFAULT 0 NOT NULL,
	"connected_at" timestamp with time zone,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_servers_transport_check" CHECK ("mcp_servers"."transport" in ('stdio', 'http')),
	CONSTRAINT "mcp_servers_status_check" CHECK ("mcp_servers"."status" in ('up', 'down', 'restarting', 'disabled')),
	CONSTRAINT "mcp_servers_target_check" CHECK (("mcp_servers"."transport" = 'stdio' and "mcp_servers"."command" is not null) or ("mcp_servers"."transport" = 'http' and "mcp_servers"."url" is not null))
);
--> statement-breakpoint
CREATE TABLE "mcp_tools" (
	"server" varchar(24) NOT NULL,
	"name" text NOT NULL,
	"kind" text DEFAULT 'tool' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"input_schema" jsonb NOT NULL,
	"schema_hash" varchar(64) NOT NULL,
	"class" text,
	"classified_by" text,
	"classified_at" timestamp with time zone,
	"present" boolean DEFAULT true NOT NULL,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "mcp_tools_server_name_pk" PRIMARY KEY("server","name"),
	CONSTRAINT "mcp_tools_kind_check" CHECK ("mcp_tools"."kind" in ('tool', 'resources', 'prompts')),
	CONSTRAINT "mcp_tools_class_check" CHECK ("mcp_tools"."class" is null or "mcp_tools"."class" in ('READ', 'WRITE', 'DESTRUCTIVE', 'EXTERNAL_WRITE'))
);
--> statement-breakpoint
ALTER TABLE "mcp_tools" ADD CONSTRAINT "mcp_tools_server_mcp_servers_name_fk" FOREIGN KEY ("server") REFERENCES "public"."mcp_servers"("name") ON DELETE cascade ON UPDATE cascade;--> statement-breakpoint
CREATE INDEX "mcp_tools_server_idx" ON "mcp_tools" USING btree ("server");