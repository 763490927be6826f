// Sharing a custom agent on both databases (issue 21 Deliver 8): `use` may chat with it but
// not edit it (403), `edit` may change its instructions and triggers but not its access (403),
// `full` may; the list shows what is shared with a person; a viewer holding `full` still makes
// no WRITE run (a sharee's role narrows the run); revoking takes effect on the next request.
import { beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { testEngineDeps } from '#tests/fixtures/engine-deps'
import { hubUsers } from '#db/schema/hub'
import { customRunContext } from '../../core/custom/access'
import { ConfigBody, createCustomAgent, customAgentView, listCustomAgents, saveCustomAgent, setKilled } from '../../core/custom/agents'
import { customAgentPage } from '../../core/custom/api'
import { customToolRegistry } from '../../core/custom/delegation'
import { revokeShare, shareAgent } from '../../core/custom/sharing'
import { startRun, type EngineDeps } from '../../core/engine/loop'
import { runSteps } from '../../core/engine/store'

const OWNER = { id: null, email: 'owner-share@studio.test', role: 'operator' as const }
const USER = { id: null, email: 'use-share@studio.test', role: 'operator' as const }
const EDITOR = { id: null, email: 'edit-share@studio.test', role: 'operator' as const }
const FULL = { id: null, email: 'full-share@studio.test', role: 'operator' as const }
const VIEWER = { id: null, email: 'viewer-share@studio.test', role: 'viewer' as const }
const STRANGER = { id: null, email: 'stranger-share@studio.test', role: 'operator' as const }
const plan = (steps: unknown[]) => `Do it.\n\`\`\`offline-plan\n${JSON.stringify(steps)}\n\`\`\``

describeOnBothDatabases('custom agent sharing', (database) => {
  let engine: EngineDeps
  const config = async (name: string) => {
    const view = await customAgentView(database().db, OWNER, name)
    return ConfigBody.parse({
      nickname: view.agent.nickname,
      description: view.agent.description,
      allowlist: view.agent.allowlist,
      model: view.agent.model,
      canDelegate: view.agent.canDelegate,
      maxDepth: view.agent.maxDepth,
      runsPerHour: view.agent.runsPerHour,
    })
  }

  beforeAll(async () => {
    const { db } = database()
    await db.insert(hubUsers).values([OWNER, USER, EDITOR, FULL, VIEWER, STRANGER].map(person => ({ email: person.email, name: person.email, role: person.role, passwordHash: 'x' })))
    engine = testEngineDeps(db, { registry: customToolRegistry() })
    await createCustomAgent(db, OWNER, { ...ConfigBody.parse({ nickname: 'Shared', allowlist: { tools: ['recall_memory', 'create_work_item'] } }), codename: 'shared-bot' })
    await shareAgent(db, OWNER, 'shared-bot', { email: USER.email, level: 'use' })
    await shareAgent(db, OWNER, 'shared-bot', { email: EDITOR.email, level: 'edit' })
    await shareAgent(db, OWNER, 'shared-bot', { email: FULL.email, level: 'full' })
    await shareAgent(db, OWNER, 'shared-bot', { email: VIEWER.email, level: 'full' })
  })

  it('lets `use` see and chat with the agent, never edit it; shows it as shared with them', async () => {
    const { db } = database()
    const listed = await listCustomAgents(db, USER)
    expect(listed.map(a => [a.codename, a.level, a.shared])).toEqual([['shared-bot', 'use', true]])
    expect(await customAgentPage(db, USER, 'shared-bot')).toMatchObject({ level: 'use', shares: [] })
    const changed = { ...await config('shared-bot'), description: 'changed by use' }
    await expect(saveCustomAgent(db, USER, 'shared-bot', changed)).rejects.toMatchObject({ status: 403, code: 'share_level_too_low', details: { level: 'use', needed: 'edit' } })
    await expect(setKilled(db, USER, 'shared-bot', true)).rejects.toMatchObject({ status: 403 })
    await expect(shareAgent(db, USER, 'shared-bot', { email: STRANGER.email, level: 'full' })).rejects.toMatchObject({ status: 403 })
    // Not shared at all: the agent does not exist for them.
    await expect(customAgentView(db, STRANGER, 'shared-bot')).rejects.toMatchObject({ status: 404 })
    expect(await listCustomAgents(db, STRANGER)).toEqual([])
  })

  it('lets `edit` change instructions and triggers but not the access; `full` changes the access', async () => {
    const { db } = database()
    const base = await config('shared-bot')
    const edited = await saveCustomAgent(db, EDITOR, 'shared-bot', { ...base, description: 'edited', triggers: [{ kind: 'mention' }] })
    expect(edited.agent.description).toBe('edited')
    expect(edited.triggers.map(t => t.kind)).toEqual(['mention'])
    const widened = { ...base, allowlist: { ...base.allowlist, tools: [...base.allowlist.tools, 'create_vault_inbox_note'] } }
    await expect(saveCustomAgent(db, EDITOR, 'shared-bot', widened)).rejects.toMatchObject({ status: 403, code: 'share_level_too_low', details: { needed: 'full' } })
    await expect(saveCustomAgent(db, EDITOR, 'shared-bot', { ...base, canDelegate: true })).rejects.toMatchObject({ status: 403 })
    // Instruction documents are personal: a sharee cannot link one (not even by id).
    await expect(saveCustomAgent(db, EDITOR, 'shared-bot', { ...base, instructionId: '00000000-0000-4000-8000-000000000abc' })).rejects.toMatchObject({ status: 400, code: 'invalid_instructions' })
    const saved = await saveCustomAgent(db, FULL, 'shared-bot', widened)
    expect(saved.agent.allowlist.tools).toContain('create_vault_inbox_note')
    expect((await customAgentPage(db, FULL, 'shared-bot')).shares.map(s => [s.email, s.level])).toEqual(expect.arrayContaining([[USER.email, 'use'], [EDITOR.email, 'edit']]))
  })

  it('keeps a viewer holding `full` to READ tools in their runs; the owner\'s run keeps the writes', async () => {
    const { db } = database()
    const request = plan([{ call: 'create_work_item', input: { jobId: '00000000-0000-4000-8000-000000000000', title: 'x' } }, { answer: 'Done.' }])
    const viewerContext = await customRunContext(db, engine.registry, { codename: 'shared-bot', request, trigger: 'interactive', surface: 'api', actingUser: VIEWER })
    expect(viewerContext.allowlist).toEqual(['recall_memory'])
    const run = await startRun(engine, viewerContext)
    const [step] = (await runSteps(db, run.id)).filter(s => s.kind === 'tool')
    expect(step).toMatchObject({ tool: 'create_work_item', status: 'denied' })
    const ownerContext = await customRunContext(db, engine.registry, { codename: 'shared-bot', request, trigger: 'interactive', surface: 'api', actingUser: OWNER })
    expect(ownerContext.allowlist).toEqual(expect.arrayContaining(['recall_memory', 'create_work_item']))
  })

  it('stops a revoked share on the next request', async () => {
    const { db } = database()
    expect((await customAgentView(db, EDITOR, 'shared-bot')).agent.codename).toBe('shared-bot')
    await expect(revokeShare(db, EDITOR, 'shared-bot', EDITOR.email)).rejects.toMatchObject({ status: 403 })
    await revokeShare(db, FULL, 'shared-bot', EDITOR.email)
    await expect(customAgentView(db, EDITOR, 'shared-bot')).rejects.toMatchObject({ status: 404 })
    await expect(saveCustomAgent(db, EDITOR, 'shared-bot', await config('shared-bot'))).rejects.toMatchObject({ status: 404 })
    expect(await listCustomAgents(db, EDITOR)).toEqual([])
  })
})
