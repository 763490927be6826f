// The tool registry is the policy (I14, P4): every first tool declares its class and input
// schema, every write how it is undone; what has no tool does not exist — the capabilities
// listed below must stay absent, and this test fails the day a tool for one appears.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { FIRST_TOOLS, firstToolRegistry } from '../../core/engine/first-tools'
import { checkPolicy } from '../../core/engine/policy'
import { PROMPT_LAYER_ORDER, promptLayers, systemPrompt } from '../../core/engine/prompt'
import { RunContextInput } from '../../core/engine/context'
import { createToolRegistry, defineTool, type ToolRunContext } from '../../core/engine/tools'
import { WRITE_TOOLS } from '../../core/engine/write-tools'

const registry = firstToolRegistry()

/** Capabilities the agent must never have (issue 19, Deliver 3), as words a tool for them would use. */
const ABSENT_CAPABILITIES: Array<{ capability: string, pattern: RegExp }> = [
  { capability: 'permission changes', pattern: /permission|role|grant|access|user/i },
  { capability: 'settings', pattern: /setting|config|routing|price|automation/i },
  { capability: 'mail to clients', pattern: /client|customer|reply|external_mail|send_mail/i },
  { capability: 'deletion of audit rows', pattern: /audit|delete|purge|erase|drop/i },
]

describe('the first tools', () => {
  it('are the listed ones, each with its class', () => {
    expect(Object.fromEntries(registry.list().map(tool => [tool.name, tool.class]))).toEqual({
      recall_memory: 'READ', read_vault_note: 'READ', search_worksites: 'READ', read_work_item: 'READ',
      search_atlas_messages: 'READ', read_atlas_message: 'READ', read_agent_briefing: 'READ',
      create_work_item: 'WRITE', create_vault_inbox_note: 'WRITE', propose_instruction_change: 'WRITE', draft_skill: 'WRITE',
      start_spawn: 'EXTERNAL_WRITE', draft_team_mail: 'EXTERNAL_WRITE',
    })
  })

  it('declare how each write is undone (snapshot with a revert, or not undoable)', () => {
    for (const tool of FIRST_TOOLS.filter(t => t.class !== 'READ')) {
      expect(tool.undo, tool.name).toMatch(/^(snapshot|not_undoable)$/)
      if (tool.undo === 'snapshot') expect(tool.revert, tool.name).toBeTypeOf('function')
    }
    expect(() => defineTool({ name: 'x', description: 'x', class: 'WRITE', input: z.object({}), run: async () => ({ output: null }) })).toThrow(/declares how it is undone/)
    expect(() => createToolRegistry([FIRST_TOOLS[0]!, FIRST_TOOLS[0]!])).toThrow(/registered twice/)
  })

  it('give the model a JSON schema of each input, their class in the description', () => {
    const spec = registry.specs().find(s => s.name === 'create_work_item')!
    expect(spec.inputSchema).toMatchObject({ type: 'object', properties: { jobId: { type: 'string' }, title: { type: 'string' } }, required: expect.arrayContaining(['jobId', 'title']) })
    expect(spec.description).toMatch(/\[WRITE\]$/)
    expect(registry.specs(['recall_memory', 'nope']).map(s => s.name)).toEqual(['recall_memory'])
  })

  it.each(ABSENT_CAPABILITIES)('has no tool for $capability', ({ pattern }) => {
    const offending = registry.list().filter(tool => pattern.test(tool.name))
    expect(offending.map(tool => tool.name)).toEqual([])
  })
})

describe('the policy', () => {
  const base = { regime: 'user' as const, role: 'operator' as const, allowlist: [], standing: false }
  const tool = (name: string) => registry.get(name)

  it('refuses a tool absent from the registry even if the model names it', () => {
    expect(checkPolicy({ ...base, name: 'delete_audit_rows', tool: tool('delete_audit_rows') })).toMatchObject({ kind: 'deny', code: 'unknown_tool' })
  })

  it('lets a viewer read, never write', () => {
    expect(checkPolicy({ ...base, role: 'viewer', name: 'recall_memory', tool: tool('recall_memory') })).toEqual({ kind: 'allow' })
    for (const name of ['create_work_item', 'create_vault_inbox_note', 'propose_instruction_change', 'draft_skill', 'start_spawn', 'draft_team_mail']) {
      expect(checkPolicy({ ...base, role: 'viewer', name, tool: tool(name) }), name).toMatchObject({ kind: 'deny', code: 'role_forbids_write' })
    }
  })

  it('asks before an EXTERNAL_WRITE unless a standing approval is held; an allowlist agent calls only its tools', () => {
    expect(checkPolicy({ ...base, name: 'create_work_item', tool: tool('create_work_item') })).toEqual({ kind: 'allow' })
    expect(checkPolicy({ ...base, name: 'start_spawn', tool: tool('start_spawn') })).toEqual({ kind: 'ask' })
    expect(checkPolicy({ ...base, standing: true, name: 'start_spawn', tool: tool('start_spawn') })).toEqual({ kind: 'allow' })
    expect(checkPolicy({ ...base, regime: 'allowlist', allowlist: ['recall_memory'], name: 'read_vault_note', tool: tool('read_vault_note') })).toMatchObject({ kind: 'deny', code: 'not_allowlisted' })
    expect(checkPolicy({ ...base, regime: 'allowlist', allowlist: ['start_spawn'], name: 'start_spawn', tool: tool('start_spawn') })).toEqual({ kind: 'ask' })
  })

  it('lets a skill narrow the tools, never widen them', () => {
    expect(checkPolicy({ ...base, skillTools: ['recall_memory'], name: 'create_work_item', tool: tool('create_work_item') })).toMatchObject({ kind: 'deny', code: 'not_allowed_by_skill' })
    expect(checkPolicy({ ...base, skillTools: ['recall_memory'], name: 'recall_memory', tool: tool('recall_memory') })).toEqual({ kind: 'allow' })
    // A skill listing a tool the allowlist lacks does not grant it.
    expect(checkPolicy({ ...base, regime: 'allowlist', allowlist: ['recall_memory'], skillTools: ['read_vault_note'], name: 'read_vault_note', tool: tool('read_vault_note') })).toMatchObject({ kind: 'deny', code: 'not_allowlisted' })
    // Nor the role: a viewer's skill listing a write still cannot write.
    expect(checkPolicy({ ...base, role: 'viewer', skillTools: ['create_work_item'], name: 'create_work_item', tool: tool('create_work_item') })).toMatchObject({ kind: 'deny', code: 'role_forbids_write' })
  })
})

describe('the system prompt', () => {
  it('is assembled in the seed\'s order, each layer recorded with its sources', () => {
    const context = RunContextInput.parse({
      surface: 'api', actingUser: { email: 'a@b.c', role: 'operator' }, agent: { codename: 'personal:a@b.c', ownerEmail: 'a@b.c' }, regime: 'user', request: 'hi',
      instructions: [{ source: 'instructions:v2', text: 'INSTR' }], memory: 'MEM', forcedSkills: [{ name: 'webhooks', text: 'SKILL' }], sources: [{ kind: 'note', ref: 'a.md', title: 'A' }],
    })
    const layers = promptLayers(context)
    expect(layers.map(layer => layer.layer)).toEqual([...PROMPT_LAYER_ORDER])
    expect(layers[1]).toMatchObject({ sources: ['instructions:v2'], chars: 5 })
    const text = systemPrompt(layers)
    const at = (needle: string) => text.indexOf(needle)
    expect(at('You are an agent')).toBeLessThan(at('INSTR'))
    expect(at('INSTR')).toBeLessThan(at('MEM'))
    expect(at('MEM')).toBeLessThan(at('SKILL'))
    expect(at('SKILL')).toBeLessThan(at('note: A (a.md)'))
  })
})

describe('the personal agent\'s write tools', () => {
  const byName = new Map(WRITE_TOOLS.map(tool => [tool.name, tool]))
  const ctx = { ports: {} as ToolRunContext['ports'], actor: 'agent-run:x:op@studio.test', runId: 'x', tenants: null }

  it('change at once (WRITE) except the client reply, which asks a person first; each is undone from its snapshot', () => {
    expect(Object.fromEntries(WRITE_TOOLS.map(tool => [tool.name, [tool.class, tool.undo]]))).toEqual({
      update_work_item: ['WRITE', 'snapshot'], answer_registry_record: ['WRITE', 'snapshot'], edit_vault_inbox_note: ['WRITE', 'snapshot'],
      draft_client_reply: ['EXTERNAL_WRITE', 'snapshot'], attach_lesson_to_spawn: ['WRITE', 'snapshot'],
    })
    const base = { regime: 'user' as const, role: 'operator' as const, allowlist: [], standing: false }
    expect(checkPolicy({ ...base, name: 'update_work_item', tool: byName.get('update_work_item') })).toEqual({ kind: 'allow' })
    expect(checkPolicy({ ...base, name: 'draft_client_reply', tool: byName.get('draft_client_reply') })).toEqual({ kind: 'ask' })
    for (const tool of WRITE_TOOLS) expect(checkPolicy({ ...base, role: 'viewer', name: tool.name, tool }), tool.name).toMatchObject({ kind: 'deny', code: 'role_forbids_write' })
  })

  it('send nothing to anyone outside the team: the client reply is a draft a person sends', () => {
    expect(WRITE_TOOLS.filter(tool => /send|external_mail|mail_client|email/i.test(tool.name)).map(tool => tool.name)).toEqual([])
    expect(byName.get('draft_client_reply')!.description).toMatch(/never sent by the agent/)
  })

  it('refuse a note outside the vault inbox, and any call of a tenant-scoped run, before anything is read', async () => {
    const guard = byName.get('edit_vault_inbox_note')!.guard!
    expect(await guard({ path: 'inbox/call.md', body: 'x' }, ctx)).toBeNull()
    expect(await guard({ path: 'permanent/hosting.md', body: 'x' }, ctx)).toMatch(/^only notes of the vault inbox/)
    expect(await guard({ path: 'inbox/../permanent/hosting.md', body: 'x' }, ctx)).toMatch(/^only notes of the vault inbox/)
    expect(await guard({ path: 'inbox/call.md', body: 'x' }, { ...ctx, tenants: [] })).toMatch(/belongs to the personal agent/)
  })

  it('check their input: an owner or a status to change, a négociation\'s outcome', () => {
    const update = byName.get('update_work_item')!.input
    expect(update.safeParse({ entity: 'task', id: '00000000-0000-4000-8000-000000000001' }).success).toBe(false)
    expect(update.safeParse({ entity: 'task', id: '00000000-0000-4000-8000-000000000001', owner: null }).success).toBe(true)
    expect(update.safeParse({ entity: 'project', id: '00000000-0000-4000-8000-000000000001', status: 'paused' }).success).toBe(false)
    const answer = byName.get('answer_registry_record')!.input
    expect(answer.safeParse({ kind: 'negociation', id: '00000000-0000-4000-8000-000000000001', answer: 'Signed.' }).success).toBe(false)
    expect(answer.safeParse({ kind: 'negociation', id: '00000000-0000-4000-8000-000000000001', answer: 'Signed.', outcome: 'won' }).success).toBe(true)
  })
})
