-- Refused sign-in and password-change tries (issue 33): a try refused because its account and
-- address must wait is counted here per minute, so a flood is audited without a row per try.
CREATE TABLE "hub_sign_in_refusals" (
	"email" text NOT NULL,
	"address" text NOT NULL,
	"minute" timestamp with time zone NOT NULL,
	"route" text NOT NULL,
	"count" integer DEFAULT 1 NOT NULL,
	CONSTRAINT "hub_sign_in_refusals_email_address_minute_route_pk" PRIMARY KEY("email","address","minute","route")
);
