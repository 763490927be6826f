// Human validation of the suggestions (§4.3): apply, modify-then-apply, reject. This is the
// ONLY code that writes a suggestion to its destination, and it does so only for a named
// person, inside the transaction that claims the pending row and writes the learn_audit row
// (a second decision on the same suggestion finds it no longer pending and is refused).
//   reflex    → one line appended to the reflex memory's index (MEMORY.md)
//   directive → one line appended to the agent's key checks (agents.job_key_checks[_en]),
//               which every briefing of that agent carries (agents/core/persona.ts)
//   inbox     → a draft note in the vault inbox (never the permanent zone)
//   skill     → a pending skill proposal (learn_skill_proposals) for the founder, who alone
//               promotes proposals into the skills registry (core/skills/proposals.ts)
//   hooks, project → a draft note in the vault inbox tagged hooks-change / project-idea:
//               no configuration or project is changed by code; the note is the to-do.
import { and, eq, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { agents } from '#db/schema/agents'
import { LEARN_DESTINATIONS, learnAudit, learnLessons, learnSuggestions, type LearnDestination, type LearnSuggestion } from '#db/schema/learn'
import { learnSkillProposals } from '#db/schema/learn-skills'
import { addReflexEntry } from '#layers/memory/core/reflex'
import { writeInboxNote } from '#layers/memory/core/vault/inbox'

export type DecisionAction = 'applied' | 'modified' | 'refused'

export class ValidationError extends Error {
  constructor(readonly code: 'not_found' | 'already_decided' | 'directive_needs_agent' | 'unknown_agent' | 'bad_reflex_entry' | 'no_operator', message: string, readonly status: number) {
    super(message)
    this.name = 'ValidationError'
  }
}

export interface ValidationDeps {
  db: Db
  reflexDir: string
  vaultDir: string
  now?: () => Date
}

export interface Modification {
  destination?: LearnDestination
  suggestion?: string
  diffAfter?: string
  /** For a directive: the agent whose key checks receive the line (default: the lesson's agent). */
  agent?: string
}

export interface Decision {
  suggestion: LearnSuggestion
  auditId: number
}

const INBOX_TAGS: Record<Exclude<LearnDestination, 'reflex' | 'directive' | 'skill'>, string> = {
  inbox: 'learning-suggestion', hooks: 'hooks-change', project: 'project-idea',
}

/** A skill's name from the suggestion's first words: lowercase, hyphenated, as the registry wants. */
export function skillNameFrom(text: string, id: number): string {
  const words = text.normalize('NFD').replace(/[\u0300-\u036F]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim().split(' ').filter(Boolean).slice(0, 6)
  return words.length ? words.join('-').slice(0, 60).replace(/-+$/, '') : `learning-suggestion-${id}`
}

async function proposeSkill(tx: Db, row: LearnSuggestion, operator: string): Promise<string> {
  const [lesson] = await tx
    .select({ sourceSpawnId: learnLessons.sourceSpawnId, tags: learnLessons.tags })
    .from(learnLessons)
    .where(eq(learnLessons.id, row.lessonId))
  const body = row.diffAfter.trim() || row.suggestion.trim()
  const [proposal] = await tx.insert(learnSkillProposals).values({
    pattern: row.suggestion.split('\n')[0]!.slice(0, 300),
    name: skillNameFrom(row.suggestion, row.id),
    description: row.suggestion.trim().slice(0, 500),
    body,
    tags: lesson?.tags ?? [],
    evidence: lesson?.sourceSpawnId ? [{ spawnId: lesson.sourceSpawnId, excerpt: `lesson #${row.lessonId}` }] : [],
    fingerprint: `suggestion-${row.id}`,
    proposedBy: `learning-suggestion (applied by ${operator})`,
  }).returning({ id: learnSkillProposals.id })
  return `skill-proposal:${proposal!.id}`
}

async function writeDestination(
  tx: Db,
  deps: ValidationDeps,
  row: LearnSuggestion,
  agentOverride: string | undefined,
  operator: string,
): Promise<string> {
  const line = row.diffAfter.trim() || row.suggestion.trim()
  switch (row.destination) {
    case 'reflex': {
      if (/[\r\n]/.test(line))
        throw new ValidationError('bad_reflex_entry', 'a reflex entry is one line: edit diff_after to a single line', 400)
      try {
        return `reflex:MEMORY.md:${addReflexEntry(deps.reflexDir, line)}`
      }
      catch (error) {
        throw new ValidationError('bad_reflex_entry', (error as Error).message, 400)
      }
    }
    case 'directive': {
      const agent = agentOverride?.trim() || row.agent
      if (!agent)
        throw new ValidationError('directive_needs_agent', 'this lesson is global: name the agent whose directive receives the rule', 400)
      const entry = `- ${line.replace(/\s*\n\s*/g, ' ')}`
      const updated = await tx
        .update(agents)
        .set({
          jobKeyChecks: sql`case when ${agents.jobKeyChecks} = '' then ${entry} else ${agents.jobKeyChecks} || E'\\n' || ${entry} end`,
          jobKeyChecksEn: sql`case when ${agents.jobKeyChecksEn} = '' then ${entry} else ${agents.jobKeyChecksEn} || E'\\n' || ${entry} end`,
        })
        .where(eq(agents.codename, agent))
        .returning({ codename: agents.codename })
      if (!updated.length) throw new ValidationError('unknown_agent', `no agent with codename "${agent}"`, 400)
      return `directive:${agent}`
    }
    case 'skill':
      return await proposeSkill(tx, row, operator)
    default: {
      const tag = INBOX_TAGS[row.destination]
      const path = writeInboxNote(deps.vaultDir, {
        name: `learning/${tag}-${row.id}.md`,
        overwrite: true,
        frontmatter: {
          type: tag,
          status: 'draft',
          tags: ['learning', tag],
          suggestion: row.id,
          lesson: row.lessonId,
          agent: row.agent ?? undefined,
          validated_by: operator,
        },
        body: [
          `# ${row.suggestion.split('\n')[0]!.slice(0, 120)}`,
          '',
          row.suggestion,
          '',
          '## Before',
          '',
          row.diffBefore || '(new)',
          '',
          '## After',
          '',
          row.diffAfter,
        ].join('\n'),
      })
      return `vault:${path}`
    }
  }
}

async function decide(
  deps: ValidationDeps,
  id: number,
  operator: string,
  action: DecisionAction,
  change: Modification & { reason?: string } = {},
): Promise<Decision> {
  if (!operator.trim()) throw new ValidationError('no_operator', 'a decision names the person taking it', 400)
  const now = (deps.now ?? (() => new Date()))()
  return deps.db.transaction(async (tx) => {
    const [before] = await tx.select().from(learnSuggestions).where(eq(learnSuggestions.id, id)).for('update')
    if (!before) throw new ValidationError('not_found', `no suggestion #${id}`, 404)
    if (before.status !== 'pending')
      throw new ValidationError(
        'already_decided',
        `suggestion #${id} was already ${before.status} by ${before.decidedBy ?? 'someone'}`,
        409,
      )
    const edited: LearnSuggestion
      = action === 'modified'
        ? {
            ...before,
            destination: change.destination ?? before.destination,
            suggestion: change.suggestion?.trim() || before.suggestion,
            diffAfter: change.diffAfter ?? before.diffAfter,
          }
        : before
    // The claim first, the destination next, the audit last: a destination that refuses the
    // write (a reflex line too long, an unknown agent) rolls the claim back with it.
    const [claimed] = await tx
      .update(learnSuggestions)
      .set({
        status: action,
        decidedAt: now,
        decidedBy: operator,
        destination: edited.destination,
        suggestion: edited.suggestion,
        diffAfter: edited.diffAfter,
      })
      .where(and(eq(learnSuggestions.id, id), eq(learnSuggestions.status, 'pending')))
      .returning()
    if (!claimed) throw new ValidationError('already_decided', `suggestion #${id} was decided meanwhile`, 409)
    const target = action === 'refused' ? null : await writeDestination(tx as unknown as Db, deps, edited, change.agent, operator)
    const [row] = target
      ? await tx.update(learnSuggestions).set({ appliedTarget: target }).where(eq(learnSuggestions.id, id)).returning()
      : [claimed]
    const [audit] = await tx
      .insert(learnAudit)
      .values({
        subjectKind: 'suggestion',
        subjectId: String(id),
        action,
        operator,
        at: now,
        diff: {
          destination: edited.destination,
          diffBefore: before.diffBefore,
          diffAfter: edited.diffAfter,
          suggestion: edited.suggestion,
          target,
          ...(action === 'modified'
            ? { proposed: { destination: before.destination, suggestion: before.suggestion, diffAfter: before.diffAfter } }
            : {}),
          ...(change.reason ? { reason: change.reason } : {}),
        },
      })
      .returning({ id: learnAudit.id })
    return { suggestion: row!, auditId: audit!.id }
  })
}

export const applySuggestion = (deps: ValidationDeps, id: number, operator: string, options: { agent?: string } = {}) => decide(deps, id, operator, 'applied', options)
export const modifyAndApplySuggestion = (deps: ValidationDeps, id: number, operator: string, change: Modification) => decide(deps, id, operator, 'modified', change)
export const rejectSuggestion = (deps: ValidationDeps, id: number, operator: string, reason?: string) => decide(deps, id, operator, 'refused', { reason })

export { LEARN_DESTINATIONS }
