// Built-in skills shipped as seeds (issue 21 Deliver 2): enabled for everyone until a person
// disables them; never deleted. Seeding is idempotent and never overwrites a founder's edit
// (a built-in already present is left as it is).
import { sql } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { skills } from '#db/schema/skills'
import { createSkill } from './library'

export const BUILT_IN_SKILLS = [
  {
    name: 'write-a-recap',
    description: 'Write a recap of a meeting or call: decisions, owners, next steps. Compte rendu, récapitulatif de réunion.',
    body: '# Write a recap\n\n1. Start with the decisions taken, one line each.\n2. List the actions: who, what, by when.\n3. Note the open questions and who will answer them.\n4. Keep it under 200 words; the person\'s language.\n',
    tags: ['writing', 'meetings'],
  },
  {
    name: 'triage-a-bug-report',
    description: 'Triage a bug report: reproduce, severity, component, owner. Trier un rapport de bug, anomalie, gravité.',
    body: '# Triage a bug report\n\n1. Restate the bug in one sentence.\n2. Steps to reproduce, expected vs actual.\n3. Severity: blocker, major, minor — and why.\n4. The component and a likely owner; search the work items for a duplicate first.\n',
    tags: ['engineering', 'support'],
  },
  {
    name: 'draft-client-email',
    description: 'Draft an email to a client: polite, clear, with a call to action. Rédiger un courriel, mail client.',
    body: '# Draft a client email\n\n- One purpose per email; the ask in the first two lines.\n- Polite, plain words, no jargon.\n- End with a clear next step and a date.\n- A draft only: a person sends it.\n',
    tags: ['writing', 'clients'],
  },
  {
    name: 'summarise-a-document',
    description: 'Summarise a long document into key points. Résumer un document, synthèse, points clés.',
    body: '# Summarise a document\n\n- Five key points at most, each one sentence.\n- Quote figures exactly; cite the section they come from.\n- End with what the reader must decide or do, if anything.\n',
    tags: ['writing'],
  },
] as const

export async function seedBuiltInSkills(db: Db): Promise<{ inserted: number }> {
  let inserted = 0
  for (const skill of BUILT_IN_SKILLS) {
    const [present] = await db.select({ id: skills.id }).from(skills).where(sql`${skills.name} = ${skill.name}`)
    if (present) continue
    try {
      await createSkill(db, { email: 'system', role: 'founder' }, { ...skill, tags: [...skill.tags] }, { origin: 'builtin', builtIn: true })
      inserted++
    }
    catch (error) {
      // Two hubs seeding at once: the other one inserted it (unique name) — anything else is real.
      if ((error as { code?: string }).code !== 'skill_exists' && !String((error as Error).message).includes('skills_name_key')) throw error
    }
  }
  return { inserted }
}
