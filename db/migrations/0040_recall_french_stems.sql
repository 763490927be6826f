-- Stems back (issue 37): synedre_french unaccents before the French stemmer, which then
-- misreads the endings it knows by their accents ("bloquées" -> 'bloque' but "bloqué" ->
-- 'bloqu'; "déployées" -> 'deploye' but "déploiement" -> 'deploi'), so an inflection of a
-- note's word missed the note (or found it only as a typo, ranked after every exact match).
-- The column now also holds the French stemmer's own stems, accents folded by translate()
-- (immutable and built in), those synedre_french lacks only. Recall asks for both stems of
-- each query word (layers/memory/core/recall/arms.ts). The index and the lexicon follow.
ALTER TABLE "mem_embeddings" drop column "tsv";--> statement-breakpoint
ALTER TABLE "mem_embeddings" ADD COLUMN "tsv" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('synedre_french'::regconfig, coalesce(title, '')), 'A') || setweight(to_tsvector('synedre_french'::regconfig, content), 'B') || ts_delete(setweight(replace(replace(translate((to_tsvector('french'::regconfig, coalesce(title, '')))::text, 'àâäáãåçéèêëíìîïñóòôöõúùûüýÿ', 'aaaaaaceeeeiiiinooooouuuuyy'), 'œ', 'oe'), 'æ', 'ae')::tsvector, 'A') || setweight(replace(replace(translate((to_tsvector('french'::regconfig, content))::text, 'àâäáãåçéèêëíìîïñóòôöõúùûüýÿ', 'aaaaaaceeeeiiiinooooouuuuyy'), 'œ', 'oe'), 'æ', 'ae')::tsvector, 'B'), tsvector_to_array(setweight(to_tsvector('synedre_french'::regconfig, coalesce(title, '')), 'A') || setweight(to_tsvector('synedre_french'::regconfig, content), 'B')))) STORED;--> statement-breakpoint
CREATE INDEX "mem_embeddings_tsv_idx" ON "mem_embeddings" USING gin ("tsv") WITH (fastupdate = false);--> statement-breakpoint
INSERT INTO "mem_lexicon" (lexeme)
  SELECT DISTINCT lexeme FROM mem_embeddings, unnest(tsvector_to_array(mem_embeddings.tsv)) AS lexeme
  WHERE length(lexeme) BETWEEN 3 AND 40 AND lexeme !~ '^[0-9]+$'
  ON CONFLICT DO NOTHING;
