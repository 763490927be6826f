// A custom agent's page (issue 21 Deliver 6–10) as its parts share it: the page's data, the draft
// its settings edit (no nulls: the inputs hold strings) and the body a save sends back as a new
// version. The parts are split for size; this keeps them speaking of the same shapes.
import type { InternalApi } from 'nitropack/types'
import type { TriggerInput } from '#layers/agents/core/custom/triggers'

export type CustomAgentPage = InternalApi['/api/agents/custom/:codename']['get']
type Trigger = CustomAgentPage['triggers'][number]
type Filter = Trigger['filters'][number]
/** A trigger as the form edits it; a webhook keeps its slug so a save keeps its hook. */
export interface DraftTrigger { kind: TriggerInput['kind'], cron?: string, event?: string, filters?: Filter[], events?: string[], branch?: string, slug?: string, hasSecret?: boolean }
export type CustomAgentDraft = CustomAgentPage['agent'] & { triggers: DraftTrigger[], note: string }
export type CustomAgentRun = InternalApi['/api/agents/custom/:codename/runs']['post']

function draftTrigger(trigger: Trigger): DraftTrigger {
  if (trigger.kind === 'webhook') return { kind: 'webhook', events: (trigger.event ?? '').split(',').filter(Boolean), branch: trigger.filters?.find(f => f.field === 'branch')?.value ?? '', slug: trigger.hookSlug ?? undefined, hasSecret: trigger.hasSecret }
  // The stored kind is one TriggerInput accepted when the agent was saved.
  return { kind: trigger.kind as DraftTrigger['kind'], cron: trigger.cron ?? undefined, event: trigger.event ?? undefined, filters: structuredClone(toRaw(trigger.filters ?? [])) }
}

export function customAgentDraft(page: CustomAgentPage): CustomAgentDraft {
  return { ...structuredClone(toRaw(page.agent)), triggers: page.triggers.map(draftTrigger), note: '' }
}

function triggerBody(trigger: DraftTrigger) {
  if (trigger.kind === 'schedule') return { kind: 'schedule', cron: trigger.cron ?? '' }
  if (trigger.kind === 'mention') return { kind: 'mention' }
  if (trigger.kind === 'webhook') return { kind: 'webhook', events: trigger.events ?? [], branch: trigger.branch?.trim() || null, ...(trigger.slug ? { slug: trigger.slug } : {}) }
  return { kind: trigger.kind, event: trigger.event ?? '', filters: (trigger.filters ?? []).map(f => (f.op === 'changed' ? { field: f.field, op: f.op } : f)) }
}

/** What PUT /api/agents/custom/:codename saves as the next version. */
export function customAgentBody(draft: CustomAgentDraft) {
  return {
    nickname: draft.nickname,
    description: draft.description,
    instructionId: draft.instructionId,
    skillIds: draft.skillIds,
    allowlist: draft.allowlist,
    model: draft.model,
    canDelegate: draft.canDelegate,
    maxDepth: draft.maxDepth,
    runsPerHour: draft.runsPerHour,
    triggers: draft.triggers.map(triggerBody),
    note: draft.note,
  }
}

/** A run's status or a trigger's fire outcome as a badge colour. */
export const customAgentStatusColor = (status: string) => (status === 'succeeded' || status === 'fired' ? 'success' : status === 'failed' ? 'error' : status === 'running' ? 'info' : 'warning')

/** A checkbox list's value in or out of the draft's list, in place. */
export function toggleInList<T>(list: T[], value: T) {
  return list.includes(value) ? list.splice(list.indexOf(value), 1) : list.push(value)
}
