// The post-project debrief (issue 18 Deliver 5, seed §4.4): the project's audit bundle, the
// ROI guard, the model, and the lesson note written into the vault INBOX as a draft. The
// note never goes further by itself: a person promotes it from the hub (memory's promote).
import type { Db } from '#db/client'
import { writeInboxNote } from '#layers/memory/core/vault/inbox'
import { VaultPathError } from '#layers/memory/core/vault/paths'
import { buildBundle, DebriefError, findProject, renderBundle, type DebriefBundle } from './bundle'
import { writeDebrief, type DebriefModelDeps } from './model'
import { DEBRIEF_SYSTEM, debriefPrompt } from './prompt'

/** The ROI guard: a project with fewer work items (jobs + tasks) is not worth a debrief. */
export const DEBRIEF_MIN_WORK_ITEMS = 3

export interface DebriefRequest {
  project: string
  tenant?: string
  /** Overrides the ROI guard. */
  force?: boolean
  /** Builds the bundle and the prompt; calls no model, writes nothing. */
  dryRun?: boolean
  via?: 'auto' | 'facade'
  /** Who asked (an e-mail, or the automate's name). */
  actor: string
}

export interface DebriefReport {
  project: { id: string, name: string, tenant: string | null }
  workItems: number
  bundleChars: number
  dryRun: boolean
  forced: boolean
  /** The inbox note written (`inbox/debriefs/…`), null on a dry run. */
  notePath: string | null
  via: 'agent-cli' | 'facade' | null
  provider: string | null
  model: string | null
  attempts: Array<{ via: string, ok: boolean, error?: string }>
}

export interface DebriefDeps {
  db: Db
  vaultDir: string
  model: DebriefModelDeps
  now: () => Date
  log?: (line: string) => void
}

function slug(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036F]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'project'
}

export function noteFor(
  bundle: DebriefBundle,
  markdown: string,
  meta: { via: string, provider: string, model: string, actor: string, at: Date },
): { frontmatter: Record<string, unknown>, body: string } {
  return {
    frontmatter: {
      title: `Debrief — ${bundle.project.name}`,
      type: 'lesson',
      status: 'draft',
      tags: ['debrief', 'lesson', ...(bundle.project.tenantSlug ? [bundle.project.tenantSlug] : [])],
      source: 'learning-debrief',
      project: bundle.project.id,
      tenant: bundle.project.tenantSlug,
      work_items: bundle.workItems,
      model: `${meta.provider}/${meta.model} (${meta.via})`,
      requested_by: meta.actor,
      created: meta.at.toISOString(),
    },
    body: `# Debrief — ${bundle.project.name}\n\n> Draft written by a model from the project's audit bundle; review it, then promote it from the hub or discard it.\n\n${markdown}\n`,
  }
}

export async function runDebrief(deps: DebriefDeps, request: DebriefRequest): Promise<DebriefReport> {
  const project = await findProject(deps.db, { project: request.project, tenant: request.tenant })
  const bundle = await buildBundle(deps.db, project)
  const rendered = renderBundle(bundle)
  const base: DebriefReport = {
    project: { id: project.id, name: project.name, tenant: project.tenantSlug },
    workItems: bundle.workItems, bundleChars: rendered.length, dryRun: request.dryRun ?? false, forced: false,
    notePath: null, via: null, provider: null, model: null, attempts: [],
  }
  if (bundle.workItems < DEBRIEF_MIN_WORK_ITEMS) {
    if (!request.force) {
      throw new DebriefError('roi_guard', `project "${project.name}" has ${bundle.workItems} work item(s), fewer than ${DEBRIEF_MIN_WORK_ITEMS}: not worth a debrief (--force to override)`, { workItems: bundle.workItems, minimum: DEBRIEF_MIN_WORK_ITEMS })
    }
    base.forced = true
    deps.log?.(`ROI guard overridden: ${bundle.workItems} work item(s)`)
  }
  if (request.dryRun) return base
  let answer
  try {
    answer = await writeDebrief(deps.model, DEBRIEF_SYSTEM, debriefPrompt(rendered), {
      via: request.via,
      tenant: project.tenantSlug ?? undefined,
      actor: request.actor,
    })
  }
  catch (error) {
    throw new DebriefError('model_unavailable', (error as Error).message, { attempts: (error as { attempts?: unknown }).attempts ?? [] })
  }
  const at = deps.now()
  const note = noteFor(bundle, answer.markdown, { ...answer, actor: request.actor, at })
  const stem = `debriefs/${at.toISOString().slice(0, 10)}-${slug(project.name)}-${project.id.slice(0, 8)}`
  // A second debrief the same day gets its own draft (-2, -3…): a draft is never overwritten.
  let notePath: string | null = null
  for (let n = 1; notePath === null; n++) {
    try {
      notePath = writeInboxNote(deps.vaultDir, { name: `${stem}${n === 1 ? '' : `-${n}`}.md`, ...note })
    }
    catch (error) {
      if (!(error instanceof VaultPathError) || n >= 50 || !/already exists/.test(error.message)) throw error
    }
  }
  return { ...base, notePath, via: answer.via, provider: answer.provider, model: answer.model, attempts: answer.attempts }
}
