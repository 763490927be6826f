-- The AI facade's starting data: list prices (USD per million tokens, editable in the hub
-- at /hub/ai) and the default routing rows. ON CONFLICT DO NOTHING: an edited row is never
-- overwritten.
INSERT INTO "ai_prices" ("provider", "model", "input_usd_per_mtok", "output_usd_per_mtok", "note") VALUES
  ('mistral', 'mistral-large-latest', 0.5, 1.5, 'list price, Mistral Large'),
  ('mistral', 'mistral-medium-latest', 0.4, 2, 'list price, Mistral Medium'),
  ('mistral', 'mistral-small-latest', 0.1, 0.3, 'list price, Mistral Small'),
  ('mistral', 'mistral-embed', 0.1, 0, 'list price, embeddings'),
  ('anthropic', 'claude-opus-4-6', 5, 25, 'list price, Claude Opus 4.6'),
  ('anthropic', 'claude-sonnet-4-6', 3, 15, 'list price, Claude Sonnet 4.6'),
  ('anthropic', 'claude-haiku-4-5', 1, 5, 'list price, Claude Haiku 4.5'),
  ('openai', 'gpt-4o', 2.5, 10, 'list price, GPT-4o'),
  ('openai', 'gpt-4o-mini', 0.15, 0.6, 'list price, GPT-4o mini'),
  ('openai', 'text-embedding-3-small', 0.02, 0, 'list price, embeddings'),
  ('openai', 'text-embedding-3-large', 0.13, 0, 'list price, embeddings'),
  ('voyage', 'voyage-3', 0.06, 0, 'list price, embeddings'),
  ('openai-compat', '*', 0, 0, 'self-hosted endpoint: no per-token price'),
  ('offline', '*', 0, 0, 'offline provider: no model, no cost')
ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "ai_routing" ("feature", "complete_provider", "complete_model", "embed_provider", "embed_model", "params", "note") VALUES
  ('default', 'anthropic', 'claude-haiku-4-5', 'mistral', 'mistral-embed', '{"dimensions": 1024}'::jsonb, 'global fallback row: every feature inherits what its own row leaves empty'),
  ('atlas_classify', 'mistral', 'mistral-small-latest', NULL, NULL, '{"timeoutMs": 30000}'::jsonb, 'Atlas intent classification: strict JSON, 30 s')
ON CONFLICT DO NOTHING;
