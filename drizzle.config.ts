import { defineConfig } from 'drizzle-kit'

// Migrations are generated from db/schema; hand-written SQL (extensions, HNSW indexes,
// tsvector columns, views, triggers) goes in `drizzle-kit generate --custom` files.
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema/index.ts',
  out: './db/migrations',
})
