// SKILL.md export and import against the library: export keeps the downloaded copy's
// fingerprint (the "newer version" badge compares with it); import creates a skill of the
// importing person from an external bundle (its files arrive shareable, as they were shared).
import { eq } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { skillFiles, skills, type Skill } from '#db/schema/skills'
import { SkillError } from './errors'
import { fingerprintOf } from './fingerprint'
import { createSkill, skillView, type Actor } from './library'
import { exportBundle, importBundle } from './skill-md'

export async function exportSkill(db: Db, actor: Actor, id: number): Promise<{ filename: string, data: Buffer, fingerprint: string }> {
  const { skill, files } = await skillView(db, actor, id)
  const data = exportBundle(
    { name: skill.name, description: skill.description, body: skill.body, tags: skill.tags, allowedTools: skill.allowedTools },
    files,
  )
  const fingerprint = fingerprintOf(skill, files)
  await db.update(skills).set({ exportedFingerprint: fingerprint, exportedAt: new Date() }).where(eq(skills.id, id))
  return { filename: `${skill.name}.skill.tar`, data, fingerprint }
}

export async function importSkill(db: Db, actor: Actor, data: Buffer): Promise<Skill> {
  if (data.length === 0) throw new SkillError('empty_bundle', 'the uploaded bundle is empty', 422)
  const document = importBundle(data)
  if (document.files.length > 20) throw new SkillError('too_many_files', 'a skill holds at most 20 files', 422)
  const skill = await createSkill(db, actor, {
    name: document.name, description: document.description, body: document.body, tags: document.tags, allowedTools: document.allowedTools,
    files: document.files.map(file => ({ path: file.path, content: file.content, shareable: true })),
  }, { origin: 'import' })
  return skill
}

export async function skillFilesOf(db: Db, id: number) {
  return await db.select().from(skillFiles).where(eq(skillFiles.skillId, id))
}
