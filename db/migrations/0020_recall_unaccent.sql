-- Recall that matches French as people type it (issue 17): "sécurité" and "securite" are one
-- stem. synedre_french is the french configuration with unaccent before the Snowball
-- stemmer; the lexical arm's generated column is rebuilt with it (every row re-computed).
-- pg_trgm comes with it for the fuzzy expansion of misspelt words (migration 0021).
CREATE EXTENSION IF NOT EXISTS unaccent;--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE TEXT SEARCH CONFIGURATION "synedre_french" (COPY = pg_catalog.french);--> statement-breakpoint
ALTER TEXT SEARCH CONFIGURATION "synedre_french" ALTER MAPPING FOR hword, hword_part, word WITH unaccent, french_stem;--> statement-breakpoint
ALTER TABLE "mem_embeddings" DROP COLUMN "tsv";--> statement-breakpoint
ALTER TABLE "mem_embeddings" ADD COLUMN "tsv" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('synedre_french'::regconfig, coalesce(title, '')), 'A') || setweight(to_tsvector('synedre_french'::regconfig, content), 'B')) STORED;--> statement-breakpoint
CREATE INDEX "mem_embeddings_tsv_idx" ON "mem_embeddings" USING gin ("tsv");
