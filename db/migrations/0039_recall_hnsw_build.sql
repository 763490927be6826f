-- The recall index built with twice pgvector's default ef_construction (issue 17): a better
-- connected graph keeps recall@10 at 0.99+ with a smaller ef_search (arms.ts, HNSW_BUILD and
-- EF_SEARCH_MIN), where the default build's recall changed from one build to the next. On
-- PostgreSQL only, as 0029: PGlite's WebAssembly inserts would pay for it at every sync. The
-- rebuild holds the index while it runs (about four minutes at 100,000 chunks, a second at a
-- studio's few thousand).
DO $$
BEGIN
  IF version() NOT LIKE '%emscripten%' AND to_regclass('mem_embeddings_embedding_hnsw_idx') IS NOT NULL THEN
    ALTER INDEX "mem_embeddings_embedding_hnsw_idx" SET (m = 16, ef_construction = 128);
    REINDEX INDEX "mem_embeddings_embedding_hnsw_idx";
  END IF;
END
$$;
