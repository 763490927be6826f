// The spawn page's story on both databases: the message and tenant, the briefing file as the
// agent received it, the loop, the lessons it produced; and the loop's records read from the
// database as they are — "not recorded" on a schema without the routing columns and the
// injection link table, the real rows once they exist (created here as the pipeline half
// of issue 15 is expected to create them).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { translator } from '#tests/helpers/catalogs'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { TESTS_TMP } from '#tests/helpers/database-config'
import { atlasSpawnLessons, atlasSpawns } from '#db/schema/atlas-spawn'
import { learnLessons } from '#db/schema/learn'
import { databaseLoopRecords } from '../../core/spawn-loop-records'
import { spawnStory } from '../../core/spawn-story'
import { spawnPaths } from '../../core/run-agent'
import { classifiedMessage, createTenant } from '../fixtures/seed'

describeOnBothDatabases('The spawn story', (database) => {
  let dir: string
  beforeAll(() => {
    mkdirSync(TESTS_TMP, { recursive: true })
    dir = mkdtempSync(join(TESTS_TMP, 'spawn-story-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const promptFile = (id: string) => spawnPaths(dir, id).systemPromptFile

  async function loop() {
    const { db } = database()
    const tenant = await createTenant(db)
    const messageId = await classifiedMessage(db, { tenantId: tenant.id, subject: 'Le panier se vide tout seul' })
    const [first] = await db.insert(atlasSpawns).values({ messageId, iteration: 1, status: 'failed', outcome: 'qa_failed', queuedBy: 'test', qa: { passed: false, errors: [{ kind: 'application', route: '/cart', message: 'HTTP 500' }] } }).returning()
    const [second] = await db.insert(atlasSpawns).values({ messageId, iteration: 2, previousSpawnId: first!.id, status: 'succeeded', outcome: 'actioned', queuedBy: 'test' }).returning()
    return { tenant, messageId, first: first!, second: second! }
  }

  it('tells the message, the briefing file as sent, the loop and the lessons recorded from the spawn', async () => {
    const { db } = database()
    const { tenant, messageId, first, second } = await loop()
    mkdirSync(spawnPaths(dir, first.id).spawnDir, { recursive: true })
    writeFileSync(promptFile(first.id), '# Persona\nYou are the integrator.\n## Mission brief\nAcme sells bikes.\n')
    const [byHand] = await db.insert(learnLessons).values({ kind: 'failure', title: 'Cart emptied on refresh', description: 'The session cookie was not sent.', tags: ['recorded-by-hand', `spawn:${first.id}`] }).returning()
    const story = await spawnStory({ db, systemPromptFile: promptFile, records: databaseLoopRecords(db) }, first.id)
    expect(story).toMatchObject({
      spawn: { id: first.id, iteration: 1, status: 'failed', qa: { passed: false } },
      message: { id: messageId, subject: 'Le panier se vide tout seul', intent: 'run' },
      tenant: { slug: tenant.slug, name: tenant.name },
      briefing: { text: expect.stringContaining('Acme sells bikes.'), truncated: false, unavailable: null },
      loop: [{ id: first.id, iteration: 1, status: 'failed', outcome: 'qa_failed' }, { id: second.id, iteration: 2, status: 'succeeded', outcome: 'actioned' }],
      produced: [{ lessonId: byHand!.id, kind: 'scar', title: 'Cart emptied on refresh' }],
    })
    // The second spawn's file was never written: said so, not an error.
    const other = await spawnStory({ db, systemPromptFile: promptFile, records: databaseLoopRecords(db) }, second.id)
    expect(other?.briefing).toMatchObject({ text: null, unavailable: expect.stringMatching(/not there/) })
    // Said in the reader's language through its key; a file that cannot be read (a folder) names why.
    const say = translator('en')
    expect(say(other!.briefing.unavailableKey!, other!.briefing.unavailableValues)).toBe(other!.briefing.unavailable)
    const unreadable = await spawnStory({ db, systemPromptFile: () => tmpdir(), records: databaseLoopRecords(db) }, second.id)
    expect(unreadable?.briefing).toMatchObject({ unavailable: 'the system prompt file cannot be read (EISDIR)', unavailableValues: { reason: 'EISDIR' } })
    expect(say(unreadable!.briefing.unavailableKey!, unreadable!.briefing.unavailableValues)).toBe(unreadable!.briefing.unavailable)
    expect(other?.produced).toEqual([])
    expect(await spawnStory({ db, systemPromptFile: promptFile, records: databaseLoopRecords(db) }, '00000000-0000-4000-8000-000000000000')).toBeNull()
  })

  it('reads the routed agent, the briefing budget and the injected lessons once the loop records them', async () => {
    const { db } = database()
    const { first } = await loop()
    // Nothing recorded for a spawn yet.
    expect(await databaseLoopRecords(db).routing(first.id)).toEqual({ agent: null, briefingTokens: null, briefingBudget: null })
    expect(await databaseLoopRecords(db).injected(first.id)).toEqual([])
    await db.execute(sql`update atlas_spawns set agent_codename = 'orchestrator', briefing_tokens = 1830, briefing_budget = 6000 where id = ${first.id}`)
    const [own] = await db.insert(learnLessons).values({ kind: 'failure', title: 'Own scar', description: 'd', agent: 'orchestrator', recallCount: 3 }).returning()
    const [global] = await db.insert(learnLessons).values({ kind: 'success', title: 'Global victory', description: 'd' }).returning()
    await db.insert(atlasSpawnLessons).values([{ spawnId: first.id, lessonId: global!.id, rank: 2, origin: 'global' }, { spawnId: first.id, lessonId: own!.id, rank: 1, origin: 'own' }])
    const records = databaseLoopRecords(db)
    expect(await records.routing(first.id)).toEqual({ agent: 'orchestrator', briefingTokens: 1830, briefingBudget: 6000 })
    expect(await records.injected(first.id)).toEqual([
      { lessonId: own!.id, rank: 1, kind: 'scar', title: 'Own scar', agent: 'orchestrator', recallCount: 3, archived: false },
      { lessonId: global!.id, rank: 2, kind: 'victory', title: 'Global victory', agent: null, recallCount: 0, archived: false },
    ])
  })
})
