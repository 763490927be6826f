// agents-dispatch [--window-minutes N] [--json]
// Every minute: the custom agents' triggers (seed 003 §12.6). Reads what happened in the hub
// since its stored cursors (classified Atlas messages and their tenant mail, lessons recorded,
// work items changing status, instruction documents mentioning @agents), in order, page by
// page until drained, fires the matching event triggers and the due schedules, each once (a
// unique key per trigger and event: a page read again or a second dispatcher fires nothing
// twice), within each agent's hourly cap and kill switch, a bounded number of runs at a time.
// --window-minutes: how far back a source with no cursor yet starts (the first run).
import { parseArgs } from 'node:util'
import { createAiFacade } from '#layers/ai/core/facade'
import { dispatchSchedules, type FireResult } from '#layers/agents/core/custom/dispatcher'
import { dispatchEventCycle } from '#layers/agents/core/custom/event-cycle'
import { autonomousLauncher, customAgentEngine } from '#layers/hub/core/custom-agent-engine'
import { hubMcpRuntime } from '#layers/hub/core/mcp-wiring'
import { provideMcpRuntime } from '#layers/agents/core/mcp/runtime'
import { defaultDataDir } from '#db/client'
import { defineAutomate } from '#layers/health/core/automate'
import { memoryConfig } from '#layers/memory/core/config'
import { facadeEmbedder } from '#layers/memory/core/vectors/embedder'
import { skillRouterPort } from '#layers/skills/core/port'
import { routerSettings } from '#layers/skills/core/settings'

export default defineAutomate({
  name: 'agents-dispatch',
  description: 'Fires custom agents\' triggers (schedules, hub events, mentions, tenant mail) once each, within caps and kill switches.',
  scope: 'agent_triggers, hub events → agent_trigger_fires, agent_runs (AI facade: agent_run)',
  leaseTtlMs: 600_000,
  async run(ctx) {
    const { values } = parseArgs({ args: ctx.args, options: { 'window-minutes': { type: 'string' }, 'json': { type: 'boolean' } } })
    const window = values['window-minutes'] === undefined ? 10 : Number(values['window-minutes'])
    if (!Number.isInteger(window) || window < 1 || window > 1440) throw new Error('--window-minutes must be a whole number from 1 to 1440')
    const ai = createAiFacade({ env: process.env, db: ctx.db, log: line => ctx.log(line) })
    // The MCP servers' tools as classified; a server is started only when a run calls one of its tools.
    const mcp = hubMcpRuntime({ db: ctx.db, env: process.env, dataDir: defaultDataDir(), log: ctx.log })
    provideMcpRuntime(mcp)
    try {
      await mcp.refresh()
      const embedder = facadeEmbedder(ai, { feature: 'agent_recall' })
      const engine = customAgentEngine({
        db: ctx.db,
        ai,
        embedder,
        vaultDir: memoryConfig(process.env).vaultDir,
        env: process.env,
        skillRouter: skillRouterPort(ctx.db, embedder, routerSettings(process.env), ctx.log),
        log: ctx.log,
      })
      const deps = { db: ctx.db, launch: autonomousLauncher(engine), log: ctx.log, signal: ctx.signal, now: ctx.now }
      const schedules = await dispatchSchedules(deps)
      const cycle = await dispatchEventCycle(deps, { firstWindowMs: window * 60_000 })
      const results: FireResult[] = [...schedules, ...cycle.results]
      const count = (outcome: string) => results.filter(result => result.outcome === outcome).length
      if (values.json) ctx.log(JSON.stringify({ events: cycle.events, pages: cycle.pages, drained: cycle.drained, results }))
      else ctx.log(`${cycle.events} event(s) in ${cycle.pages} page(s) since the cursors; fired ${count('fired')}, already fired ${count('duplicate')}, capped ${count('capped')}, killed ${count('killed')}, own writes ${count('self')}, busy ${count('busy')}, failed ${count('failed')}`)
      return count('failed') > 0 && count('fired') === 0 ? 1 : 0
    }
    finally {
      provideMcpRuntime(null)
      await mcp.manager.close()
      await ai.flush()
    }
  },
})
