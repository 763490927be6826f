-- Recall under 25 ms at 100,000 chunks (issue 17): on PostgreSQL the HNSW index holds the
-- vectors in half precision (halfvec, pgvector 0.7+): a third of the index's size and faster
-- distances; recall re-ranks what the index returns by the exact full-precision distance.
-- The column keeps full precision. The cast follows the column's dimension (a re-embed may
-- have changed it from the seed's 1024). PGlite keeps the full-precision index: its
-- WebAssembly pgvector inserts into a halfvec index three to four times slower.
DO $$
DECLARE dimensions integer;
BEGIN
  IF version() NOT LIKE '%emscripten%' THEN
    SELECT atttypmod INTO dimensions FROM pg_attribute WHERE attrelid = 'mem_embeddings'::regclass AND attname = 'embedding' AND NOT attisdropped;
    DROP INDEX IF EXISTS "mem_embeddings_embedding_hnsw_idx";
    EXECUTE format('CREATE INDEX "mem_embeddings_embedding_hnsw_idx" ON "mem_embeddings" USING hnsw (("embedding"::halfvec(%s)) halfvec_cosine_ops)', dimensions);
  END IF;
END
$$;
--> statement-breakpoint
-- The lexical arm's index without a pending list: with fastupdate, the entries of a bulk
-- sync wait unmerged (up to 4 MB) until a vacuum, and every search scans them all.
ALTER INDEX "mem_embeddings_tsv_idx" SET (fastupdate = false);--> statement-breakpoint
SELECT gin_clean_pending_list('mem_embeddings_tsv_idx'::regclass);
