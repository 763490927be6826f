-- Typos (issue 17): the lexicon of every stem in the lexical arm's column, with a trigram
-- index, so that a misspelt query word is expanded to the nearest stems the vault holds.
-- Kept by statement-level triggers on mem_embeddings (one insert per statement, whatever
-- its size); a stem is never removed: a stale one expands to nothing.
CREATE TABLE "mem_lexicon" (
	"lexeme" text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE INDEX "mem_lexicon_trgm_idx" ON "mem_lexicon" USING gin ("lexeme" gin_trgm_ops);--> statement-breakpoint
CREATE FUNCTION "mem_lexicon_collect"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO mem_lexicon (lexeme)
    SELECT DISTINCT lexeme FROM changed, unnest(tsvector_to_array(changed.tsv)) AS lexeme
    WHERE length(lexeme) BETWEEN 3 AND 40 AND lexeme !~ '^[0-9]+$'
    ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "mem_lexicon_on_insert" AFTER INSERT ON "mem_embeddings" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "mem_lexicon_collect"();--> statement-breakpoint
CREATE TRIGGER "mem_lexicon_on_update" AFTER UPDATE ON "mem_embeddings" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "mem_lexicon_collect"();--> statement-breakpoint
INSERT INTO "mem_lexicon" (lexeme)
  SELECT DISTINCT lexeme FROM mem_embeddings, unnest(tsvector_to_array(mem_embeddings.tsv)) AS lexeme
  WHERE length(lexeme) BETWEEN 3 AND 40 AND lexeme !~ '^[0-9]+$'
  ON CONFLICT DO NOTHING;--> statement-breakpoint
-- The front matter respected: a note's tenant and agent (its type and tags already had columns),
-- and the tenant a chunk belongs to, for recall's tenant filter.
ALTER TABLE "mem_notes" ADD COLUMN "tenant" text;--> statement-breakpoint
ALTER TABLE "mem_notes" ADD COLUMN "agent" text;--> statement-breakpoint
ALTER TABLE "mem_embeddings" ADD COLUMN "tenant" text;
