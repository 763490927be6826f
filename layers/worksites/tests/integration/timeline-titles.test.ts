// The timeline's titles in the reader's language, on both databases: a chantier, its task and a
// registry record whose timelines reach every kind of row (worksites' own iterations,
// assignments and transitions; the message, spawns, QA and lessons the hub's port supplies).
// Each row keeps its English title and gives beside it a key both catalogs hold, whose English
// message, rendered by vue-i18n with the row's values, is that title word for word.
import { beforeAll, expect, it } from 'vitest'
import { catalog, translator } from '#tests/helpers/catalogs'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { learnLessons } from '#db/schema/learn'
import { workIterations } from '#db/schema/work-iterations'
import { seedAgents } from '#layers/agents/core/seed'
import { timelineSources } from '#layers/hub/core/timeline-sources'
import { promoteDraft } from '../../core/drafts'
import { listItems } from '../../core/items'
import { registryDetail } from '../../core/registry-actions'
import { entityTimeline, type TimelineItem } from '../../core/timeline'
import { assign, transition } from '../../core/transitions'
import { ACTOR, recordFromMessage, worksite } from '../fixtures/world'

const EN = catalog('en')
const FR = catalog('fr')
const say = { en: translator('en'), fr: translator('fr') }

/** Every message key under worksites.timeline.titles in the English catalog. */
const titleKeys = () => [...EN.keys()].filter(key => key.startsWith('worksites.timeline.titles.'))

describeOnBothDatabases('Worksites timeline titles', (database) => {
  let items: TimelineItem[] = []

  beforeAll(async () => {
    const { db } = database()
    await seedAgents(db)
    const site = await worksite(db, 0)
    const draft = await recordFromMessage(db, 'chantier', { subject: 'Une page pour nos horaires' })
    await promoteDraft(db, draft.record.id, { projectId: site.project.id, jobs: [{ title: 'Pages', tasks: ['Horaires'] }] }, ACTOR)
    const [task] = (await listItems(db, 'task', { chantierId: draft.record.id, sort: 'position', limit: 5 })).items
    await assign(db, 'task', task!.id, { kind: 'agent', codename: 'orchestrator' }, ACTOR)
    await assign(db, 'task', task!.id, null, ACTOR)
    await transition(db, 'task', task!.id, { to: 'in_progress', actor: ACTOR })

    const spawn = { messageId: draft.message.id, taskId: task!.id, queuedBy: ACTOR }
    const [failed] = await db.insert(atlasSpawns).values({ ...spawn, iteration: 1, status: 'failed', outcome: 'qa_failed', qa: { errors: ['404 on /horaires', 'console error'] } }).returning()
    const [passed] = await db.insert(atlasSpawns).values({ ...spawn, iteration: 2, status: 'succeeded', outcome: 'actioned', qa: { errors: [] } }).returning()
    await db.insert(atlasSpawns).values({ ...spawn, iteration: 3, status: 'queued' })
    await db.insert(workIterations).values({ taskId: task!.id, spawnId: failed!.id, step: 1, outcome: 'fail', observation: 'QA failed' })
    await db.insert(learnLessons).values([
      { kind: 'failure', title: 'Check the {route} of @each page', sourceSpawnId: failed!.id },
      { kind: 'success', title: 'Hours page | shipped', sourceSpawnId: passed!.id },
    ])

    const untitled = await recordFromMessage(db, 'run', { subject: '' })
    items = [
      ...await entityTimeline(db, timelineSources, 'chantier', draft.record.id),
      ...await entityTimeline(db, timelineSources, 'task', task!.id),
      ...(await registryDetail(db, timelineSources, 'runs', untitled.record.id)).timeline,
    ]
  })

  it('keeps the English titles the API always gave', () => {
    expect(items.map(item => item.title)).toEqual(expect.arrayContaining([
      'Une page pour nos horaires', '(no subject)', 'Created (todo)', 'draft → planned', 'Assigned to orchestrator', 'Assigned to nobody', 'todo → in_progress',
      'Spawn 1 failed (qa_failed)', 'Spawn 2 succeeded (actioned)', 'Spawn 3 queued', 'QA of spawn 1: 2 error(s)', 'QA of spawn 2: passed',
      'Iteration 1: fail', 'Scar: Check the {route} of @each page', 'Victory: Hours page | shipped',
    ]))
  })

  it('gives each title a key both catalogs hold, whose English message with the row\'s values is the title', () => {
    for (const item of items.filter(entry => entry.titleKey)) {
      const key = item.titleKey!
      expect(EN.has(key), `${key} in en.json`).toBe(true)
      expect(FR.has(key), `${key} in fr.json`).toBe(true)
      expect(say.en(key, item.titleValues ?? {}), key).toBe(item.title)
    }
    const french = items.filter(item => item.titleKey === 'worksites.timeline.titles.qaErrors').map(item => say.fr(item.titleKey!, item.titleValues ?? {}))
    expect(french).toContain('Recette du lancement 1 : 2 erreur(s)')
  })

  it('reaches every title message of the catalog, and leaves only a subject without a key', () => {
    expect(new Set(items.map(item => item.kind))).toEqual(new Set(['message', 'spawn', 'qa', 'lesson', 'iteration', 'assignment', 'transition']))
    const emitted = new Set(items.map(item => item.titleKey))
    expect(titleKeys().filter(key => !emitted.has(key))).toEqual([])
    expect(items.filter(item => !item.titleKey).map(item => [item.kind, item.titleValues])).toEqual([['message', null], ['message', null]])
  })
})
