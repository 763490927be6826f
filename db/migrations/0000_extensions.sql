-- pgvector: the memory, agents and atlas families store 1024-dimension embeddings.
CREATE EXTENSION IF NOT EXISTS vector;
