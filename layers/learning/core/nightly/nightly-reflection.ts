// Feature 5, nightly reflection: for each active agent, its 20 most salient resolved scars go
// to one model call that answers 3 introspective questions and 3 abstractions, left as ONE
// draft per agent and night in the vault inbox (fingerprint agent+date in learn_nightly_marks:
// a second run the same night drafts nothing). Nothing is promoted. A dry-run only counts the
// eligible agents and calls no model. The scars' text is third-party data (it quotes mails,
// logs, pages): it reaches the model inside one untrusted block, and the answer is validated
// and rendered line by line, so a scar cannot change the draft's shape.
import { z } from 'zod'
import { and, eq, sql } from 'drizzle-orm'
import { learnNightlyMarks } from '#db/schema/learn'
import { untrustedBlock, untrustedLine, untrustedMarkers } from '#layers/spawn/core/untrusted'
import { writeInboxNote } from '#layers/memory/core/vault/inbox'
import { createScrubber } from '../scrub'
import { daysBefore, type NightlyContext, type NightlyFeature } from './context'
import { promptFile } from '#layers/ai/core/prompts/file'

export const NIGHTLY_REFLECTION_KEY = 'nightly_reflection'
/** An agent is active when it has a lesson, a spawn or an agent run in this many days. */
export const REFLECTION_ACTIVE_DAYS = 30
export const REFLECTION_MAX_SCARS = 20
const SCAR_TEXT_MAX = 600
const ITEM_MAX = 400

const item = z.string().trim().min(1).max(2_000)
export const ReflectionAnswer = z.object({
  questions: z.array(item).length(3),
  abstractions: z.array(item).length(3),
})

const SYSTEM = promptFile(new URL('./nightly-reflection.system.md', import.meta.url))

interface Scar {
  id: number
  kind: string
  title: string
  description: string
  checkAdded: string
  recallCount: number
  severity: number | null
}

/**
 * Active agents with at least one resolved scar. Active: registry `active = 1` and a lesson,
 * a spawn or an agent run in the last 30 days. A resolved scar: a non-success lesson, not
 * archived, with the check that prevents it recorded (`check_added` not empty).
 */
async function eligibleAgents(ctx: NightlyContext): Promise<string[]> {
  const since = daysBefore(ctx.now, REFLECTION_ACTIVE_DAYS).toISOString()
  const rows = await ctx.db.execute<{ codename: string }>(sql`
    select a.codename from agents a
    where a.active = 1
      and (exists (select 1 from learn_lessons l where l.agent = a.codename and l.created_at >= ${since})
        or exists (select 1 from atlas_spawns s where s.agent_codename = a.codename and s.queued_at >= ${since})
        or exists (select 1 from agent_runs r where r.agent = a.codename and r.created_at >= ${since}))
      and exists (select 1 from learn_lessons l where l.agent = a.codename and l.kind <> 'success' and l.archived_at is null and btrim(l.check_added) <> '')
    order by a.codename`)
  return rows.map(r => r.codename)
}

/** Salience: recalled most, then most severe, then most important, then most recent. */
async function salientScars(ctx: NightlyContext, agent: string): Promise<Scar[]> {
  const rows = await ctx.db.execute<{ id: string, kind: string, title: string, description: string, check_added: string, recall_count: number, severity: number | null }>(sql`
    select id::text as id, kind, title, description, check_added, recall_count, severity from learn_lessons
    where agent = ${agent} and kind <> 'success' and archived_at is null and btrim(check_added) <> ''
    order by recall_count desc, coalesce(severity, 0) desc, coalesce(importance, 0) desc, created_at desc, id desc
    limit ${REFLECTION_MAX_SCARS}`)
  return rows.map(r => ({
    id: Number(r.id),
    kind: r.kind,
    title: r.title,
    description: r.description,
    checkAdded: r.check_added,
    recallCount: Number(r.recall_count),
    severity: r.severity === null ? null : Number(r.severity),
  }))
}

export function reflectionPrompt(agent: string, scars: Scar[], nonce?: string): string {
  const markers = untrustedMarkers(nonce)
  const scrub = createScrubber()
  const line = (value: string) => untrustedLine(scrub(value).text, SCAR_TEXT_MAX, markers.nonce)
  const lines = scars.flatMap(s => [`- scar #${s.id} (${s.kind}, recalled ${s.recallCount}×${s.severity ? `, severity ${s.severity}` : ''}): ${line(s.title)}`, `  what happened: ${line(s.description)}`, `  check added: ${line(s.checkAdded)}`])
  return [`Agent: ${agent}. Its ${scars.length} most salient resolved scars:`, '', ...untrustedBlock(markers, 'the agent\'s scars', lines), '', 'Answer the JSON object now.'].join('\n')
}

/** One line of the draft: the model's text on one line, cut, so it cannot add headings or sections. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').replace(/^[#>\-*\s]+/, '').trim()
  return flat.length > ITEM_MAX ? `${flat.slice(0, ITEM_MAX - 1)}…` : flat
}

export const nightlyReflection: NightlyFeature = {
  name: 'nightly-reflection',
  routingKey: NIGHTLY_REFLECTION_KEY,
  async run(ctx) {
    const agents = await eligibleAgents(ctx)
    const day = ctx.now.toISOString().slice(0, 10)
    const counts = { eligible: agents.length, drafted: 0, alreadyDrafted: 0, failed: 0 }
    const items: Array<Record<string, unknown>> = []
    const drafts: string[] = []
    if (ctx.dryRun) return { counts, items: agents.map(agent => ({ agent })), drafts }
    for (const agent of agents) {
      const fingerprint = `reflection:${agent}:${day}`
      const [mark] = await ctx.db.select().from(learnNightlyMarks).where(and(eq(learnNightlyMarks.feature, 'nightly-reflection'), eq(learnNightlyMarks.fingerprint, fingerprint)))
      if (mark) {
        counts.alreadyDrafted++
        items.push({ agent, draft: mark.ref, already: true })
        continue
      }
      const scars = await salientScars(ctx, agent)
      try {
        const answer = await ctx.ai.complete({ feature: NIGHTLY_REFLECTION_KEY, system: SYSTEM, prompt: reflectionPrompt(agent, scars), json: true, actor: 'nightly-consolidation', timeoutMs: 120_000, signal: ctx.signal })
        const parsed = ReflectionAnswer.safeParse(answer.data)
        if (!parsed.success) throw new Error(`the model's answer is outside the schema (${parsed.error.issues[0]?.message ?? 'invalid'})`)
        const scrub = createScrubber()
        const body = [
          `# Nightly reflection of ${agent}, ${day}`,
          '',
          `From its ${scars.length} most salient resolved scar(s) (#${scars.map(s => s.id).join(', #')}). A draft: a person decides what, if anything, becomes a rule; nothing was promoted.`,
          '',
          '## Questions',
          '',
          ...parsed.data.questions.map(q => `- ${oneLine(scrub(q).text)}`),
          '',
          '## Abstractions',
          '',
          ...parsed.data.abstractions.map(a => `- ${oneLine(scrub(a).text)}`),
        ].join('\n')
        const path = writeInboxNote(ctx.vaultDir, { name: `nightly/reflection-${agent}-${day}.md`, overwrite: true, frontmatter: { type: 'reflection-draft', source: 'nightly-consolidation', feature: 'nightly-reflection', agent, day, lessons: scars.map(s => s.id), created: ctx.now.toISOString() }, body })
        await ctx.db.insert(learnNightlyMarks).values({ feature: 'nightly-reflection', fingerprint, ref: path }).onConflictDoNothing()
        drafts.push(path)
        counts.drafted++
        items.push({ agent, lessonIds: scars.map(s => s.id), draft: path })
      }
      catch (error) {
        counts.failed++
        ctx.log(`nightly-reflection: ${agent}: ${(error as Error).message}`)
        items.push({ agent, error: (error as Error).message })
      }
    }
    return { counts, items, drafts }
  },
}
