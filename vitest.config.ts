import { defineConfig } from 'vitest/config'
import SlowFirstSequencer from './tests/helpers/sequencer.ts'

// Suites: unit (pure core), integration (every database test on the embedded PGlite AND
// native PostgreSQL 15 + pgvector), system (real processes: automates, supervisors, the
// launcher), http (the built Nitro server), e2e (Debian chromium via playwright-core).
//
// One pool for every project: the files of all suites run side by side, the long ones
// handed out first (tests/helpers/sequencer.ts). Vitest runs projects whose maxWorkers
// differ one after the other, so they share one value. Three workers on two cores: most
// system, http and e2e files spend their time waiting on a hub, a browser or an install
// in processes of their own, so a third worker fills the cores they leave idle. Nothing
// in these suites shares a port, a database or a folder (freePort, a database per file,
// a DATA_DIR per hub), which is what running them side by side needs.
// VITEST_MAX_WORKERS sets another count (1 runs every file alone).
const maxWorkers = Number(process.env.VITEST_MAX_WORKERS) || 3

// Every integration suite runs on both databases (tests/helpers/databases.ts), except these,
// which run on the embedded one (the default a studio starts on): what they prove is a
// process's behaviour (exit codes, files compared byte for byte, a sandbox's walls), while the
// SQL they go through is proven on both databases by the suites named in each reason. Suites
// whose SQL, locking or concurrency can differ between PGlite (one backend shared by every
// connection) and PostgreSQL stay on both: recall, leases, queues, the spawn engine's caps,
// the collector, migrations, the nightly audits and metrics.
const oneDatabase: Record<string, string> = {
  'layers/memory/tests/integration/eval-gate.test.ts':
    'the recall:eval CLI\'s exit codes, flags and files; recall\'s ranking on both databases is recall.test.ts, recall-truer.test.ts and recall-fast.test.ts',
  'layers/learning/tests/integration/no-path-without-human.test.ts':
    'destinations compared byte for byte around the learning automates as processes; the learning tables\' SQL is debrief.test.ts, suggest.test.ts, skill-proposals.test.ts and validation.test.ts on both',
  'layers/learning/tests/integration/destinations-unchanged.test.ts':
    'the same byte-for-byte proof for every learning automate and flag; the same suites prove its SQL on both',
  'layers/spawn/tests/integration/hostile.test.ts':
    'a hostile agent against the sandbox\'s walls; the spawn engine\'s SQL and locking are engine.test.ts, loop.test.ts and killed-worker.test.ts on both',
  'layers/spawn/tests/integration/claude-cli.test.ts':
    'the real Claude Code CLI inside the sandbox; the same spawn suites prove the SQL on both',
  'layers/spawn/tests/integration/mcp-claude.test.ts':
    'the real Claude Code CLI and a real MCP server inside the sandbox; the same spawn suites prove the SQL on both',
}

export default defineConfig({
  test: {
    reporters: ['verbose'],
    maxWorkers,
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      // Unit tests that read the whole tree (layering, docs) met the 5 s default at load 19.
      { test: { name: 'unit', maxWorkers, include: ['tests/unit/**/*.test.ts', 'layers/*/tests/unit/**/*.test.ts'], testTimeout: 20_000 } },
      {
        test: {
          name: 'integration',
          maxWorkers,
          include: ['tests/integration/**/*.test.ts', 'layers/*/tests/integration/**/*.test.ts'],
          globalSetup: ['tests/helpers/database-templates.ts'],
          provide: { oneDatabase },
          testTimeout: 30_000,
          hookTimeout: 90_000,
        },
      },
      {
        test: {
          name: 'system',
          maxWorkers,
          include: ['tests/system/**/*.test.ts', 'tests/http/**/*.test.ts', 'tests/e2e/**/*.test.ts'],
          globalSetup: ['tests/helpers/database-templates.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // A page's answer under CI's load takes seconds, not vitest's 1 s default (cockpit e2e, stop 43).
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
})
