import { defineConfig } from 'vitest/config'

// Suites: unit (pure core), integration (every database test on the embedded PGlite AND
// native PostgreSQL 15 + pgvector), system (real processes: automates, supervisors, the
// launcher), http (the built Nitro server), e2e (Debian chromium via playwright-core).
export default defineConfig({
  test: {
    reporters: ['verbose'],
    projects: [
      { test: { name: 'unit', include: ['tests/unit/**/*.test.ts', 'layers/*/tests/unit/**/*.test.ts'] } },
      {
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts', 'layers/*/tests/integration/**/*.test.ts'],
          globalSetup: ['tests/helpers/database-templates.ts'],
          testTimeout: 30_000,
          hookTimeout: 90_000,
        },
      },
      {
        test: {
          name: 'system',
          include: ['tests/system/**/*.test.ts', 'tests/http/**/*.test.ts', 'tests/e2e/**/*.test.ts'],
          globalSetup: ['tests/helpers/database-templates.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
