// Routing a prompt domain to one agent of the registry, on both databases: the tie-break
// between the agents that serve it, an inactive agent skipped, an unknown (or invalid) domain
// falling back to the orchestrator, and no agent at all when even the fallback is inactive.
import { eq } from 'drizzle-orm'
import { beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { agents } from '#db/schema/agents'
import { agentsForDomain } from '../../core/registry'
import { FALLBACK_AGENT, routeAgent } from '../../core/routing'
import { seedAgents } from '../../core/seed'

describeOnBothDatabases('agent routing', (database) => {
  beforeAll(async () => {
    await seedAgents(database().db)
  })

  it('picks one of the agents GET /api/agents?domain= lists, by the documented tie-break', async () => {
    const { db } = database()
    const candidates = (await agentsForDomain(db, 'question')).map(a => a.codename)
    expect(candidates).toEqual(expect.arrayContaining(['orchestrator', 'analyse-besoin']))
    // "question" is analyse-besoin's first domain, the orchestrator's fourth.
    expect(await routeAgent(db, 'question')).toEqual({ codename: 'analyse-besoin', domain: 'question', fallback: false, candidates: candidates.length })
    expect(await routeAgent(db, ' Run ')).toMatchObject({ codename: 'orchestrator', domain: 'run', fallback: false })
    expect(await routeAgent(db, 'negociation')).toMatchObject({ codename: 'finances', fallback: false })
  })

  it('skips an inactive agent', async () => {
    const { db } = database()
    await db.update(agents).set({ active: 0 }).where(eq(agents.codename, 'finances'))
    try {
      expect(await routeAgent(db, 'negociation')).toMatchObject({ codename: FALLBACK_AGENT, fallback: true, candidates: 0 })
    }
    finally {
      await db.update(agents).set({ active: 1 }).where(eq(agents.codename, 'finances'))
    }
  })

  it('falls back to the orchestrator for an unknown, empty or malformed domain', async () => {
    const { db } = database()
    for (const domain of ['astrologie', '', null, 'NUL\u0000', '../etc', 'x'.repeat(300)]) {
      expect(await routeAgent(db, domain)).toMatchObject({ codename: FALLBACK_AGENT, fallback: true, candidates: 0 })
    }
  })

  it('routes nowhere when the fallback agent is inactive and nothing serves the domain', async () => {
    const { db } = database()
    await db.update(agents).set({ active: 0 }).where(eq(agents.codename, FALLBACK_AGENT))
    try {
      expect(await routeAgent(db, 'astrologie')).toBeNull()
    }
    finally {
      await db.update(agents).set({ active: 1 }).where(eq(agents.codename, FALLBACK_AGENT))
    }
  })
})
