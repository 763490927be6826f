// Human validation, on both databases: apply, modify-then-apply and reject each write the
// learning audit log; applying writes the destination (reflex memory, agent directive, vault
// inbox, skill draft) and nothing else; a refused write rolls the decision back; a second
// decision is refused; the audit log is append-only; the counts and median time to decision.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { agents } from '#db/schema/agents'
import { learnAudit, learnSuggestions, type LearnDestination } from '#db/schema/learn'
import { learnSkillProposals } from '#db/schema/learn-skills'
import { skills } from '#db/schema/skills'
import { suggestionStats } from '../../core/suggestions'
import type { ValidationError } from '../../core/validation'
import { applySuggestion, modifyAndApplySuggestion, rejectSuggestion, skillNameFrom } from '../../core/validation'
import { clearLessons, lesson, seedWorld, tempFolders } from '../fixtures/world'

const OPERATOR = 'operator@studio.test'

describeOnBothDatabases('learning validation', (database) => {
  let folders: ReturnType<typeof tempFolders>
  beforeAll(async () => {
    await seedWorld(database().db)
  })
  beforeEach(async () => {
    await clearLessons(database().db)
    folders?.remove()
    folders = tempFolders()
  })
  afterAll(() => folders?.remove())
  const deps = () => ({ db: database().db, reflexDir: folders.reflexDir, vaultDir: folders.vaultDir })
  const reflex = () => (existsSync(join(folders.reflexDir, 'MEMORY.md')) ? readFileSync(join(folders.reflexDir, 'MEMORY.md'), 'utf8') : '')
  async function suggestion(destination: LearnDestination, values: Partial<typeof learnSuggestions.$inferInsert> = {}) {
    const { db } = database()
    const source = await lesson(db, { agent: values.agent ?? null })
    const [row] = await db.insert(learnSuggestions).values({ lessonId: source.id, destination, suggestion: 'Run the migrations before the deploy.', diffBefore: '', diffAfter: 'Migrations before deploy, always.', ...values }).returning()
    return row!
  }
  const refusal = async (work: Promise<unknown>) => work.then(() => null, (error: unknown) => error as ValidationError)

  it('applies a reflex suggestion: the line in MEMORY.md, the decision in the audit log; a second decision is refused', async () => {
    const { db } = database()
    const row = await suggestion('reflex')
    const decided = await applySuggestion(deps(), row.id, OPERATOR)
    expect(decided.suggestion).toMatchObject({ status: 'applied', decidedBy: OPERATOR, appliedTarget: 'reflex:MEMORY.md:1' })
    expect(reflex()).toBe('Migrations before deploy, always.\n')
    const [audit] = await db.select().from(learnAudit).where(eq(learnAudit.id, decided.auditId))
    expect(audit).toMatchObject({ subjectKind: 'suggestion', subjectId: String(row.id), action: 'applied', operator: OPERATOR })
    expect(audit!.diff).toMatchObject({ destination: 'reflex', diffBefore: '', diffAfter: 'Migrations before deploy, always.', target: 'reflex:MEMORY.md:1' })
    const again = await refusal(rejectSuggestion(deps(), row.id, 'someone@studio.test'))
    expect(again).toMatchObject({ code: 'already_decided', status: 409 })
    expect(reflex()).toBe('Migrations before deploy, always.\n')
  })

  it('applies a directive to the agent\'s key checks; a global lesson needs an agent named, and nothing moves until then', async () => {
    const { db } = database()
    const [before] = await db.select({ checks: agents.jobKeyChecks }).from(agents).where(eq(agents.codename, 'backend'))
    const owned = await suggestion('directive', { agent: 'backend' })
    await applySuggestion(deps(), owned.id, OPERATOR)
    const [after] = await db.select({ checks: agents.jobKeyChecks, en: agents.jobKeyChecksEn }).from(agents).where(eq(agents.codename, 'backend'))
    expect(after!.checks).toBe(`${before!.checks ? `${before!.checks}\n` : ''}- Migrations before deploy, always.`)
    expect(after!.en.endsWith('- Migrations before deploy, always.')).toBe(true)

    const global = await suggestion('directive')
    expect(await refusal(applySuggestion(deps(), global.id, OPERATOR))).toMatchObject({ code: 'directive_needs_agent', status: 400 })
    expect(await refusal(applySuggestion(deps(), global.id, OPERATOR, { agent: 'nobody-here' }))).toMatchObject({ code: 'unknown_agent' })
    const [still] = await db.select().from(learnSuggestions).where(eq(learnSuggestions.id, global.id))
    expect(still).toMatchObject({ status: 'pending', decidedAt: null })
    expect(await db.select().from(learnAudit).where(eq(learnAudit.subjectId, String(global.id)))).toEqual([])
    await applySuggestion(deps(), global.id, OPERATOR, { agent: 'frontend' })
    const [frontend] = await db.select({ checks: agents.jobKeyChecks }).from(agents).where(eq(agents.codename, 'frontend'))
    expect(frontend!.checks.endsWith('- Migrations before deploy, always.')).toBe(true)
  })

  it('modify-then-apply writes the edited version and audits both; a skill becomes a pending proposal for the founder', async () => {
    const { db } = database()
    const row = await suggestion('inbox')
    const skillsBefore = await db.select().from(skills)
    const decided = await modifyAndApplySuggestion(deps(), row.id, OPERATOR, { destination: 'skill', suggestion: 'Déployer : migrations, build, redémarrage', diffAfter: 'A deploy skill: migrations, then build, then restart.' })
    const [proposal] = await db.select().from(learnSkillProposals).where(eq(learnSkillProposals.fingerprint, `suggestion-${row.id}`))
    expect(decided.suggestion).toMatchObject({ status: 'modified', destination: 'skill', appliedTarget: `skill-proposal:${proposal!.id}` })
    expect(proposal).toMatchObject({ status: 'pending', name: 'deployer-migrations-build-redemarrage', body: 'A deploy skill: migrations, then build, then restart.', decidedBy: null })
    expect(proposal!.proposedBy).toContain(OPERATOR)
    // The registry itself only changes when the founder promotes.
    expect(await db.select().from(skills)).toEqual(skillsBefore)
    const [audit] = await db.select().from(learnAudit).where(eq(learnAudit.id, decided.auditId))
    expect(audit).toMatchObject({ action: 'modified' })
    expect(audit!.diff).toMatchObject({ destination: 'skill', diffAfter: 'A deploy skill: migrations, then build, then restart.', proposed: { destination: 'inbox', diffAfter: 'Migrations before deploy, always.' } })
    expect(skillNameFrom('  ?! ', 7)).toBe('learning-suggestion-7')
  })

  it('a reflex line the memory refuses rolls the decision back', async () => {
    const { db } = database()
    const row = await suggestion('reflex')
    expect(await refusal(modifyAndApplySuggestion(deps(), row.id, OPERATOR, { diffAfter: 'two\nlines' }))).toMatchObject({ code: 'bad_reflex_entry', status: 400 })
    expect(await refusal(modifyAndApplySuggestion(deps(), row.id, OPERATOR, { diffAfter: 'x'.repeat(201) }))).toMatchObject({ code: 'bad_reflex_entry' })
    expect((await db.select().from(learnSuggestions).where(eq(learnSuggestions.id, row.id)))[0]).toMatchObject({ status: 'pending', diffAfter: 'Migrations before deploy, always.' })
    expect(reflex()).toBe('')
  })

  it('rejects without writing anywhere; the audit log refuses to be rewritten; counts and median time to decision', async () => {
    const { db } = database()
    const refused = await suggestion('hooks')
    const decided = await rejectSuggestion(deps(), refused.id, OPERATOR, 'Not worth a hook.')
    expect(decided.suggestion).toMatchObject({ status: 'refused', appliedTarget: null })
    expect(existsSync(join(folders.vaultDir, 'inbox', 'learning'))).toBe(false)
    const failure = (work: Promise<unknown>) => work.then(() => 'accepted', (error: Error & { cause?: Error }) => (error.cause ?? error).message)
    expect(await failure(db.execute(sql`update learn_audit set operator = 'forger' where id = ${decided.auditId}`))).toMatch(/append-only \(UPDATE refused\)/)
    expect(await failure(db.execute(sql`delete from learn_audit where id = ${decided.auditId}`))).toMatch(/append-only \(DELETE refused\)/)

    await suggestion('project')
    const applied = await suggestion('reflex', { createdAt: new Date(Date.now() - 100_000) })
    await applySuggestion(deps(), applied.id, OPERATOR)
    await db.update(learnSuggestions).set({ createdAt: new Date(Date.now() - 300_000) }).where(eq(learnSuggestions.id, refused.id))
    const stats = await suggestionStats(db)
    expect(stats).toMatchObject({ pending: 1, applied: 1, refused: 1, modified: 0 })
    // Decisions after ~100 s and ~300 s (the refusal's creation moved back after the fact): median ≈ 200 s.
    expect(stats.medianDecisionSeconds).toBeGreaterThanOrEqual(150)
    expect(stats.medianDecisionSeconds).toBeLessThanOrEqual(250)
  })
})
