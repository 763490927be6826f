-- The sign-in limiter asks at every try whether the account signed in from this address
-- within 90 days (server/core/sign-in.ts, knownAddress): a partial index keeps that read constant.
CREATE INDEX "hub_audit_signed_in_idx" ON "hub_audit" USING btree ("actor","at") WHERE "hub_audit"."action" = 'signed_in';