// Skills (the skills library): name and description — what the skill router reads (seed 003
// §13.2) — never the body. Drafts included: the router only ever asks for enabled skills' ids.
import { skills } from '#db/schema/skills'
import { joinParts } from '../chunk'
import type { SourceAdapter } from './types'

/** The indexed text of a skill: its name as words, then its description. */
export function skillIndexText(skill: { name: string, description: string }): string {
  return joinParts(skill.name.replace(/-/g, ' '), skill.description)
}

export const skillSource: SourceAdapter = {
  type: 'skill',
  load: async ({ db }) => ({
    documents: (await db.select({ id: skills.id, name: skills.name, description: skills.description }).from(skills)).map(row => ({
      sourceId: String(row.id),
      title: row.name,
      text: skillIndexText(row),
      metadata: { name: row.name },
    })),
  }),
}
