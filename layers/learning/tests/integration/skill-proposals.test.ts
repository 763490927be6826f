// Skill proposals (issue 18 Deliver 6) on both databases: the detector over recent successful
// spawns with a scripted loopback model (patterns in ≥ 3 spawns kept with their evidence,
// deduplicated against skills and pending proposals; invalid JSON, a model down, an answer
// echoing its input), the founder's promotion as the one path into `skills`, and the
// hourly monitor's alert through a mail facade stand-in, with its one-hour cool-down.
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { learnSkillProposals } from '#db/schema/learn-skills'
import { skills } from '#db/schema/skills'
import { startScriptedModel, type ScriptedModel } from '#layers/atlas/tests/fakes/model'
import { worksite } from '#layers/worksites/tests/fixtures/world'
import { detectSkillPatterns } from '../../core/skills/detector'
import { MONITOR_COOLDOWN_MS, monitorProposals, type TeamMail } from '../../core/skills/monitor'
import { promoteSkillProposal, rejectSkillProposal, SkillProposalError } from '../../core/skills/proposals'
import { learningVersion } from '../../core/suggestions'
import { spawnOn } from '../fixtures/spawns'

const NOW = new Date('2026-11-29T04:00:00Z')

function pattern(name: string, spawnIds: string[], extra: Record<string, unknown> = {}) {
  return { pattern: `Screenshot the page before deploying (${name})`, name, description: 'Takes a screenshot of each changed page before the deploy.', body: '1. List the changed pages.\n2. Screenshot each.', tags: ['qa'], spawnIds, ...extra }
}

describeOnBothDatabases('skill proposals', (database) => {
  let model: ScriptedModel
  let good: string[]
  let failed: string
  let old: string
  beforeAll(async () => {
    model = await startScriptedModel()
    const db = database().db
    const site = await worksite(db, 1)
    good = []
    for (let i = 0; i < 4; i++) {
      good.push(await spawnOn(db, { taskId: site.tasks[0]!.id, endedAt: new Date(NOW.getTime() - (i + 1) * 3_600_000), events: [{ type: 'assistant', text: `Taking a screenshot of page ${i}` }, { type: 'tool_result', tool: 'Bash', text: 'screenshot saved' }] }))
    }
    failed = await spawnOn(db, { status: 'failed', endedAt: NOW, events: [{ type: 'assistant', text: 'broke everything' }] })
    old = await spawnOn(db, { endedAt: new Date(NOW.getTime() - 90 * 86_400_000), events: [{ type: 'assistant', text: 'ancient history' }] })
  })
  afterAll(async () => {
    await model?.close()
  })
  beforeEach(() => model.reset())

  const deps = () => ({ db: database().db, ai: model.facade(database().db), now: () => NOW })
  const proposals = () => database().db.select().from(learnSkillProposals).orderBy(learnSkillProposals.id)

  it('reads only recent successful spawns; keeps patterns seen in 3 of them, with their own excerpts as evidence', async () => {
    model.answer(JSON.stringify({ patterns: [
      pattern('screenshot-before-deploy', [good[0]!, good[1]!, good[2]!, 'not-a-spawn-of-the-batch', failed]),
      pattern('seen-twice', [good[0]!, good[1]!]),
    ] }))
    const report = await detectSkillPatterns(deps())
    expect(report).toMatchObject({ spawns: 4, found: 2, dryRun: false })
    expect(report.dropped).toEqual([{ name: 'seen-twice', why: 'seen in 2 of the runs given (at least 3 needed)' }])
    const prompt = model.prompt()
    for (const id of good) expect(prompt).toContain(id)
    expect(prompt).not.toContain(failed)
    expect(prompt).not.toContain(old)
    const rows = await proposals()
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ name: 'screenshot-before-deploy', fingerprint: 'screenshot-before-deploy', status: 'pending', tags: ['qa'], proposedBy: 'learning-skill-detector', decidedBy: null })
    expect(rows[0]!.evidence.map(e => e.spawnId).sort()).toEqual([good[0], good[1], good[2]].sort())
    expect(rows[0]!.evidence[0]!.excerpt).toMatch(/screenshot/)
    expect(await database().db.select().from(skills)).toEqual([])
  })

  it('deduplicates against pending proposals and existing skills; --dry-run inserts nothing', async () => {
    await database().db.insert(skills).values({ name: 'deploy-checklist', description: 'd', body: 'b', createdBy: 'founder@studio.test' })
    model.answer(JSON.stringify({ patterns: [pattern('Screenshot Before Deploy', good.slice(0, 3)), pattern('deploy-checklist', good.slice(0, 3)), pattern('run-tests-twice', good.slice(1, 4))] }))
    const dry = await detectSkillPatterns(deps(), { dryRun: true })
    expect(dry.dropped.map(d => d.why)).toEqual(['a pending proposal has this name', 'an existing skill has this name'])
    expect(dry.inserted).toEqual([{ id: null, name: 'run-tests-twice', spawns: 3 }])
    expect(await proposals()).toHaveLength(1)
    model.answer(JSON.stringify({ patterns: [pattern('run-tests-twice', good.slice(1, 4))] }))
    const real = await detectSkillPatterns(deps(), { limit: 10 })
    expect(real.inserted).toMatchObject([{ name: 'run-tests-twice', spawns: 3 }])
    expect((await proposals()).map(p => p.name)).toEqual(['screenshot-before-deploy', 'run-tests-twice'])
  })

  it('an answer outside the schema, invalid JSON, a model down, or an echo of its input: the run fails, nothing is inserted', async () => {
    const before = await proposals()
    model.answer('this is not JSON at all')
    await expect(detectSkillPatterns(deps())).rejects.toThrow()
    model.answer(JSON.stringify({ patterns: [{ name: 'x' }] }))
    await expect(detectSkillPatterns(deps())).rejects.toThrow(/outside the schema/)
    model.byDefault(prompt => prompt)
    await expect(detectSkillPatterns(deps())).rejects.toThrow()
    model.server.respond(() => ({ status: 503, body: { message: 'down' } }))
    await expect(detectSkillPatterns(deps())).rejects.toThrow(/unavailable/)
    expect(await proposals()).toEqual(before)
  })

  it('the founder promotes: a skills row with its source proposal and the decision recorded; decided once; a name clash changes nothing', async () => {
    const [first, second] = await proposals()
    // The learning page's live stream moves when a proposal is decided.
    const before = await learningVersion(database().db)
    const { proposal, skill } = await promoteSkillProposal(database().db, { id: first!.id, actor: 'founder@studio.test', note: 'useful' })
    expect(skill).toMatchObject({ name: 'screenshot-before-deploy', sourceProposalId: first!.id, createdBy: 'founder@studio.test', tags: ['qa'] })
    expect(proposal).toMatchObject({ status: 'promoted', decidedBy: 'founder@studio.test', decisionNote: 'useful' })
    expect(proposal.decidedAt).not.toBeNull()
    expect(await learningVersion(database().db)).not.toBe(before)
    await expect(promoteSkillProposal(database().db, { id: first!.id, actor: 'founder@studio.test' })).rejects.toMatchObject({ code: 'already_decided' })
    await expect(rejectSkillProposal(database().db, { id: first!.id, actor: 'founder@studio.test' })).rejects.toMatchObject({ code: 'already_decided' })
    const clash = await promoteSkillProposal(database().db, { id: second!.id, actor: 'founder@studio.test', name: 'deploy-checklist' }).catch(error => error)
    expect(clash).toBeInstanceOf(SkillProposalError)
    expect(clash).toMatchObject({ code: 'skill_exists' })
    const [still] = await database().db.select().from(learnSkillProposals).where(eq(learnSkillProposals.id, second!.id))
    expect(still).toMatchObject({ status: 'pending', decidedBy: null })
    const rejected = await rejectSkillProposal(database().db, { id: second!.id, actor: 'founder@studio.test', note: 'too narrow' })
    expect(rejected.proposal).toMatchObject({ status: 'rejected', decisionNote: 'too narrow' })
    expect(rejected.skill).toBeNull()
    expect((await database().db.select().from(skills)).map(s => s.name).sort()).toEqual(['deploy-checklist', 'screenshot-before-deploy'])
    await expect(promoteSkillProposal(database().db, { id: 999_999, actor: 'founder@studio.test' })).rejects.toMatchObject({ code: 'not_found' })
    // The database itself refuses a decided proposal without its author.
    await expect(database().db.execute(sql`update learn_skill_proposals set decided_by = null where id = ${second!.id}`)).rejects.toThrow()
  })

  it('the monitor mails the team above the threshold, at most once an hour, with the statistics', async () => {
    const db = database().db
    for (const name of ['a-one', 'a-two', 'a-three']) {
      await db.insert(learnSkillProposals).values({ pattern: 'p', name, description: 'd', body: 'b', fingerprint: name, proposedBy: 'tests' })
    }
    const sent: Array<{ subject: string, text: string }> = []
    const mail: TeamMail = { sendToTeam: async (m) => {
      sent.push(m)
      return { sent: true, recipients: ['founder@studio.test'] }
    } }
    let now = NOW
    const run = (threshold: number) => monitorProposals({ db, mail, now: () => now }, { threshold })
    expect((await run(5)).action).toBe('below_threshold')
    const first = await run(2)
    expect(first).toMatchObject({ action: 'alerted', over: true, stats: { byStatus: { pending: 3, promoted: 1, rejected: 1 } } })
    expect(first.stats.meanHoursToDecision).not.toBeNull()
    expect(sent).toHaveLength(1)
    expect(sent[0]!.subject).toBe('[Synedre] 3 skill proposal(s) wait for a decision (threshold 2)')
    expect(sent[0]!.text).toMatch(/pending 3, promoted 1, rejected 1/)
    now = new Date(NOW.getTime() + MONITOR_COOLDOWN_MS - 60_000)
    expect((await run(2)).action).toBe('cooling_down')
    expect(sent).toHaveLength(1)
    now = new Date(NOW.getTime() + MONITOR_COOLDOWN_MS + 60_000)
    expect((await run(2)).action).toBe('alerted')
    expect(sent).toHaveLength(2)
    const unsent = await monitorProposals({ db, mail: { sendToTeam: async () => ({ sent: false, reason: 'smtp_not_configured', recipients: [] }) }, now: () => new Date(now.getTime() + 2 * MONITOR_COOLDOWN_MS) }, { threshold: 2 })
    expect(unsent.action).toBe('not_sent')
    const [alert] = await db.execute<{ n: number }>(sql`select count(*)::int as n from ops_alerts where kind = 'skill_proposals_backlog'`)
    expect(alert!.n).toBe(1)
  })
})
