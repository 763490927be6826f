// The studio policy (seed 003 P3): the founders' list of tools an autonomous (custom) agent may
// ever use, whatever its allowlist says. One row; no row or `tools` null means every tool of
// the registry. Read by customRunContext for every custom run (Chat tab, triggers, delegation).
import { eq } from 'drizzle-orm'
import { z } from 'zod'
import type { Db } from '#db/connection'
import { agentStudioPolicy } from '#db/schema/custom-agents'
import { EngineError } from '../engine/errors'
import type { ToolRegistry } from '../engine/tools'
import type { Editor } from './agents'
import type { StudioPolicy } from './access'

export const StudioPolicyBody = z.object({
  /** null: every tool; a list: only those (an empty list stops every tool of every custom agent). */
  tools: z.array(z.string().min(1).max(64)).max(128).nullable(),
}).strict()

export interface StudioPolicyView extends StudioPolicy {
  updatedBy: string | null
  updatedAt: Date | null
  options: Array<{ name: string, class: string, description: string }>
}

export async function readStudioPolicy(db: Db): Promise<StudioPolicy> {
  const [row] = await db.select({ tools: agentStudioPolicy.tools }).from(agentStudioPolicy).where(eq(agentStudioPolicy.id, 1))
  return { tools: row?.tools ?? null }
}

export async function studioPolicyView(db: Db, registry: ToolRegistry): Promise<StudioPolicyView> {
  const [row] = await db.select().from(agentStudioPolicy).where(eq(agentStudioPolicy.id, 1))
  const options = registry.list().map(tool => ({ name: tool.name, class: tool.class, description: tool.description }))
  return { tools: row?.tools ?? null, updatedBy: row?.updatedBy ?? null, updatedAt: row?.updatedAt ?? null, options }
}

/** Founders only; an unknown tool name is refused (a typo would silently allow nothing). */
export async function saveStudioPolicy(
  db: Db,
  registry: ToolRegistry,
  editor: Editor,
  input: z.output<typeof StudioPolicyBody>,
): Promise<StudioPolicyView> {
  if (editor.role !== 'founder') throw new EngineError('forbidden', 'only a founder sets the studio policy', 403)
  const unknown = (input.tools ?? []).filter(name => !registry.get(name))
  if (unknown.length > 0) throw new EngineError('unknown_tools', `tools: no tool ${unknown.join(', ')}`, 400, { tools: unknown })
  const tools = input.tools ? [...new Set(input.tools)] : null
  const now = new Date()
  await db
    .insert(agentStudioPolicy)
    .values({ id: 1, tools, updatedBy: editor.email, updatedAt: now })
    .onConflictDoUpdate({ target: agentStudioPolicy.id, set: { tools, updatedBy: editor.email, updatedAt: now } })
  return await studioPolicyView(db, registry)
}
