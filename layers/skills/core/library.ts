// The skills library (issue 21 Deliver 1–2, seed 003 I3–I4): skills are documents — every
// save a version, support files shareable or not — readable by who may read them, used only
// once enabled (access is not activation). Built-in skills are enabled for everyone until a
// person disables them for themselves; they are never deleted.
import { and, desc, eq, inArray, or, sql } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#db/connection'
import { skillEnablements, skillFiles, skillRuns, skills, skillVersions, type Skill, type SkillFile, type SkillVersion } from '#db/schema/skills'
import { SkillError } from './errors'
import { fingerprintOf } from './fingerprint'

export const SKILL_BODY_MAX = 40_000
const name = z.string().trim().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'name: lowercase words joined by hyphens').max(64)
const filePath = z.string().trim().min(1).max(200).regex(/^(?!\/)(?!.*\.\.)[\w./ -]+$/, 'path: a relative path without ".."')
export const SkillFileInput = z.object({ path: filePath, content: z.string().max(100_000), shareable: z.boolean().default(true) }).strict()
const fields = {
  description: z.string().trim().min(1, 'description: say when the skill applies').max(1000),
  body: z.string().trim().min(1, 'body: the skill\'s instructions').max(SKILL_BODY_MAX),
  tags: z.array(z.string().trim().min(1).max(40)).max(20).default([]),
  allowedTools: z.array(z.string().max(64)).max(64).nullable().default(null),
  files: z.array(SkillFileInput).max(20).default([]),
}
export const CreateSkillBody = z.object({ name, ...fields, visibility: z.enum(['private', 'studio']).default('studio') }).strict()
export const SaveSkillBody = z.object({
  ...fields,
  note: z.string().max(500).optional(),
  /** The version the editor started from: a save over a newer version is refused (409). */
  baseVersion: z.number().int().min(1).optional(),
  visibility: z.enum(['private', 'studio']).optional(),
}).strict()
export type CreateSkillInput = z.input<typeof CreateSkillBody>

export interface Actor { email: string, role: 'viewer' | 'operator' | 'founder' }

export interface SkillSummary {
  id: number
  name: string
  description: string
  tags: string[]
  builtIn: boolean
  draft: boolean
  origin: Skill['origin']
  visibility: Skill['visibility']
  ownerEmail: string | null
  version: number
  enabled: boolean
  uses: number
  /** The skill changed since its SKILL.md bundle was downloaded. */
  newerVersion: boolean
}

export interface SkillView {
  skill: Skill
  versions: SkillVersion[]
  files: SkillFile[]
  enabled: boolean
  uses: number
  newerVersion: boolean
  canEdit: boolean
}

/** Who may read a skill: a studio one or a built-in anyone; a private one or a draft its owner. */
const readable = (email: string) => or(
  and(eq(skills.visibility, 'studio'), eq(skills.draft, false)),
  eq(skills.builtIn, true),
  eq(skills.ownerEmail, email),
)

const enabledFor = (email: string) => sql<boolean>`coalesce((select e.enabled from skill_enablements e where e.skill_id = skills.id and e.email = ${email}), ${skills.builtIn} and not ${skills.draft})`

async function insertFiles(db: Db, skillId: number, files: z.output<typeof SkillFileInput>[]) {
  await db.delete(skillFiles).where(eq(skillFiles.skillId, skillId))
  if (files.length > 0)
    await db.insert(skillFiles).values(files.map(file => ({ skillId, path: file.path, content: file.content, shareable: file.shareable })))
}

/** A new skill (version 1), enabled for its creator unless it is a draft. */
export async function createSkill(db: Db, actor: Actor, input: CreateSkillInput, options: { origin?: Skill['origin'], draft?: boolean, builtIn?: boolean } = {}): Promise<Skill> {
  const parsed = CreateSkillBody.parse(input)
  return await db.transaction(async (tx) => {
    const [clash] = await tx.select({ id: skills.id }).from(skills).where(eq(skills.name, parsed.name))
    if (clash) throw new SkillError('skill_exists', `a skill named "${parsed.name}" already exists`, 409, { skillId: clash.id })
    const [skill] = await tx.insert(skills).values({
      name: parsed.name, description: parsed.description, body: parsed.body, tags: parsed.tags, allowedTools: parsed.allowedTools,
      createdBy: actor.email, ownerEmail: options.builtIn ? null : actor.email, visibility: parsed.visibility,
      origin: options.origin ?? 'hand', draft: options.draft ?? false, builtIn: options.builtIn ?? false,
    }).returning()
    await tx.insert(skillVersions).values({ skillId: skill!.id, version: 1, description: parsed.description, body: parsed.body, tags: parsed.tags, allowedTools: parsed.allowedTools, createdBy: actor.email, note: options.draft ? 'draft' : null })
    await insertFiles(tx as unknown as Db, skill!.id, parsed.files)
    if (!options.draft && !options.builtIn)
      await tx.insert(skillEnablements).values({ skillId: skill!.id, email: actor.email, enabled: true })
    return skill!
  })
}

async function readableSkill(db: Db, email: string, id: number): Promise<Skill> {
  const [row] = await db.select().from(skills).where(and(eq(skills.id, id), readable(email)))
  if (!row) throw new SkillError('not_found', `no skill ${id}`, 404)
  return row
}

function mayEdit(actor: Actor, skill: Skill): boolean {
  if (skill.builtIn) return actor.role === 'founder'
  return skill.ownerEmail === actor.email || (actor.role === 'founder' && skill.visibility === 'studio')
}

/** A save is a new version; saving a draft makes it a skill of the library (enabled for its owner). */
export async function saveSkill(db: Db, actor: Actor, id: number, input: z.input<typeof SaveSkillBody>): Promise<SkillView> {
  const parsed = SaveSkillBody.parse(input)
  const current = await readableSkill(db, actor.email, id)
  if (!mayEdit(actor, current)) throw new SkillError('forbidden', `only the owner edits skill "${current.name}"`, 403)
  await db.transaction(async (tx) => {
    const [locked] = await tx.select().from(skills).where(eq(skills.id, id)).for('update')
    if (parsed.baseVersion !== undefined && parsed.baseVersion !== locked!.version) {
      throw new SkillError('version_conflict', `the skill is at version ${locked!.version} since you opened version ${parsed.baseVersion}: reload, nothing was lost`, 409)
    }
    const version = locked!.version + 1
    await tx
      .insert(skillVersions)
      .values({
        skillId: id,
        version,
        description: parsed.description,
        body: parsed.body,
        tags: parsed.tags,
        allowedTools: parsed.allowedTools,
        note: parsed.note ?? null,
        createdBy: actor.email,
      })
    await tx
      .update(skills)
      .set({
        description: parsed.description,
        body: parsed.body,
        tags: parsed.tags,
        allowedTools: parsed.allowedTools,
        version,
        draft: false,
        updatedAt: new Date(),
        ...(parsed.visibility ? { visibility: parsed.visibility } : {}),
      })
      .where(eq(skills.id, id))
    await insertFiles(tx as unknown as Db, id, parsed.files)
    if (locked!.draft)
      await tx
        .insert(skillEnablements)
        .values({ skillId: id, email: actor.email, enabled: true })
        .onConflictDoUpdate({ target: [skillEnablements.skillId, skillEnablements.email], set: { enabled: true } })
  })
  return await skillView(db, actor, id)
}

export const RestoreSkillBody = z.object({
  /** The version the page showed: a restore over a newer version is refused (409), like a save. */
  baseVersion: z.number().int().min(1).optional(),
}).strict()

/** Restores an old version as a NEW version (history is never rewritten); the files stay as they are. */
export async function restoreSkillVersion(
  db: Db,
  actor: Actor,
  id: number,
  version: number,
  input: z.input<typeof RestoreSkillBody> = {},
): Promise<SkillView> {
  const parsed = RestoreSkillBody.parse(input)
  const current = await readableSkill(db, actor.email, id)
  const [old] = await db
    .select()
    .from(skillVersions)
    .where(and(eq(skillVersions.skillId, id), eq(skillVersions.version, version)))
  if (!old) throw new SkillError('not_found', `no version ${version} of skill "${current.name}"`, 404)
  const files = await db.select().from(skillFiles).where(eq(skillFiles.skillId, id)).orderBy(skillFiles.path)
  return await saveSkill(db, actor, id, {
    description: old.description,
    body: old.body,
    tags: old.tags,
    allowedTools: old.allowedTools,
    files: files.map(file => ({ path: file.path, content: file.content, shareable: file.shareable })),
    note: `restored from version ${version}`,
    baseVersion: parsed.baseVersion ?? current.version,
  })
}

export async function skillView(db: Db, actor: Actor, id: number): Promise<SkillView> {
  const skill = await readableSkill(db, actor.email, id)
  const [versions, files, [state]] = await Promise.all([
    db.select().from(skillVersions).where(eq(skillVersions.skillId, id)).orderBy(desc(skillVersions.version)),
    db.select().from(skillFiles).where(eq(skillFiles.skillId, id)).orderBy(skillFiles.path),
    db.select({ enabled: enabledFor(actor.email), uses: sql<number>`(select count(*)::int from skill_runs r where r.skill_id = skills.id)` }).from(skills).where(eq(skills.id, id)),
  ])
  return {
    skill,
    versions,
    files,
    enabled: Boolean(state!.enabled),
    uses: Number(state!.uses),
    newerVersion: newer(skill, files),
    canEdit: mayEdit(actor, skill),
  }
}

function newer(skill: Skill, files: SkillFile[]): boolean {
  return skill.exportedFingerprint !== null && skill.exportedFingerprint !== fingerprintOf(skill, files)
}

/** The library of a person: My skills (enabled) and Discover (readable, not enabled), each sorted by real use. */
export async function listLibrary(db: Db, email: string): Promise<{ mine: SkillSummary[], discover: SkillSummary[] }> {
  const rows = await db.select({
    skill: skills,
    enabled: enabledFor(email),
    uses: sql<number>`(select count(*)::int from skill_runs r where r.skill_id = skills.id)`,
  }).from(skills).where(readable(email))
  const ids = rows.map(row => row.skill.id)
  const files = ids.length > 0 ? await db.select().from(skillFiles).where(inArray(skillFiles.skillId, ids)) : []
  const summaries = rows
    .map(({ skill, enabled, uses }): SkillSummary => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      builtIn: skill.builtIn,
      draft: skill.draft,
      origin: skill.origin,
      visibility: skill.visibility,
      ownerEmail: skill.ownerEmail,
      version: skill.version,
      enabled: Boolean(enabled),
      uses: Number(uses),
      newerVersion: newer(
        skill,
        files.filter(f => f.skillId === skill.id),
      ),
    }))
    .sort((a, b) => b.uses - a.uses || a.name.localeCompare(b.name))
  return {
    mine: summaries.filter(s => s.enabled || (s.draft && s.ownerEmail === email)),
    discover: summaries.filter(s => !s.enabled && !s.draft),
  }
}

/** "Enable for me" / "Disable for me": a person's own activation, built-ins included. */
export async function setEnabled(db: Db, email: string, id: number, enabled: boolean): Promise<SkillView['enabled']> {
  const skill = await readableSkill(db, email, id)
  if (skill.draft) throw new SkillError('draft', 'save the draft before enabling it', 409)
  await db
    .insert(skillEnablements)
    .values({ skillId: id, email, enabled })
    .onConflictDoUpdate({ target: [skillEnablements.skillId, skillEnablements.email], set: { enabled, updatedAt: new Date() } })
  return enabled
}

/** Deletes a skill of one's own; a built-in is never deleted (disable it instead). */
export async function deleteSkill(db: Db, actor: Actor, id: number): Promise<void> {
  const skill = await readableSkill(db, actor.email, id)
  if (skill.builtIn) throw new SkillError('built_in', `"${skill.name}" is built in: disable it for yourself, it cannot be deleted`, 409)
  if (!mayEdit(actor, skill)) throw new SkillError('forbidden', `only the owner deletes skill "${skill.name}"`, 403)
  await db.delete(skills).where(eq(skills.id, id))
}

export interface EnabledSkill {
  id: number
  name: string
  description: string
  body: string
  allowedTools: string[] | null
  files: Array<{ path: string, content: string }>
}

/** What the router may choose from for a person: enabled, saved skills, with their shareable files. */
export async function enabledSkills(db: Db, email: string): Promise<EnabledSkill[]> {
  const rows = await db.select().from(skills).where(and(readable(email), eq(skills.draft, false), sql`${enabledFor(email)}`))
  const ids = rows.map(row => row.id)
  const files
    = ids.length > 0
      ? await db
          .select()
          .from(skillFiles)
          .where(and(inArray(skillFiles.skillId, ids), eq(skillFiles.shareable, true)))
      : []
  return rows.map(row => ({
    id: row.id,
    name: row.name,
    description: row.description,
    body: row.body,
    allowedTools: row.allowedTools,
    files: files.filter(f => f.skillId === row.id).map(f => ({ path: f.path, content: f.content })),
  }))
}

export async function recordSkillRuns(db: Db, runId: string, email: string, used: Array<{ id: number, mode: 'forced' | 'auto' | 'model' }>): Promise<void> {
  if (used.length > 0) await db.insert(skillRuns).values(used.map(skill => ({ skillId: skill.id, runId, email, mode: skill.mode })))
}
