// What the engine adds to an MCP tool call (issue 35): a READ tool (server-everything's echo,
// over stdio, in the hub's sandbox) called the way a run calls it — the registry lookup, the
// policy, the input check, the call, the result cut and fenced as untrusted data — against the
// same call on the same SDK client directly. Calls alternate, one of each per pair; the figure
// is the p50 of the pairs' differences. The run's step rows are the engine's own figure
// (engine.overhead_ms_per_step), not counted here. Goal: < 2 ms.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkPolicy } from '#layers/agents/core/engine/policy'
import type { ToolPorts } from '#layers/agents/core/engine/ports'
import { ServerBody } from '#layers/agents/core/mcp/config'
import { classifyTool, saveServer } from '#layers/agents/core/mcp/store'
import { hubMcpRuntime } from '#layers/hub/core/mcp-wiring'
import { EVERYTHING_BIN } from '#layers/hub/tests/fixtures/mcp-servers'
import { nativeBenchDatabase } from './databases'
import { percentile, sized, type BenchFigure } from './lib'

const PAIRS = sized(400, 20)
const WARMUP = sized(50, 5)
const FOUNDER = { email: 'bench-mcp@studio.test', role: 'founder' as const }

export default async function (): Promise<BenchFigure[]> {
  const database = await nativeBenchDatabase('mcp', { max: 3 })
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-mcp-'))
  const runtime = hubMcpRuntime({ db: database.db, env: { PATH: process.env.PATH, SPAWN_SANDBOX: process.env.SPAWN_SANDBOX ?? 'bwrap' }, dataDir, log: () => {} })
  try {
    await saveServer(database.db, FOUNDER, ServerBody.parse({ name: 'everything', transport: 'stdio', command: 'node', args: [EVERYTHING_BIN, 'stdio'] }))
    if (await runtime.manager.reconnect('everything') !== 'up') throw new Error('server-everything did not come up')
    await classifyTool(database.db, FOUNDER, 'everything', 'echo', 'READ')
    const registry = await runtime.refresh()
    const client = runtime.manager.upClient('everything')
    const ctx = { ports: {} as ToolPorts, actor: 'bench', runId: 'bench', tenants: null }
    const throughEngine = async (message: string) => {
      const tool = registry.get('mcp__everything__echo')
      const decision = checkPolicy({ name: 'mcp__everything__echo', tool, regime: 'allowlist', role: 'operator', allowlist: ['mcp__everything__echo'], standing: false })
      if (decision.kind !== 'allow') throw new Error(`policy: ${decision.kind}`)
      const input = tool!.input.parse({ message })
      const outcome = await tool!.run(input, ctx)
      if (!String(outcome.output).includes(`Echo: ${message}`)) throw new Error('the engine call did not echo')
    }
    const direct = async (message: string) => {
      const result = await client.callTool({ name: 'echo', arguments: { message } })
      if (!JSON.stringify(result).includes(`Echo: ${message}`)) throw new Error('the direct call did not echo')
    }
    const time = async (fn: (message: string) => Promise<void>, message: string) => {
      const started = process.hrtime.bigint()
      await fn(message)
      return Number(process.hrtime.bigint() - started) / 1e6
    }
    for (let i = 0; i < WARMUP; i++) {
      await throughEngine(`w${i}`)
      await direct(`w${i}`)
    }
    const differences: number[] = []
    const engineMs: number[] = []
    const directMs: number[] = []
    for (let i = 0; i < PAIRS; i++) {
      // Alternating which goes first cancels the order's effect on the pair.
      let viaEngine: number
      let viaClient: number
      if (i % 2 === 0) {
        viaEngine = await time(throughEngine, `e${i}`)
        viaClient = await time(direct, `d${i}`)
      }
      else {
        viaClient = await time(direct, `d${i}`)
        viaEngine = await time(throughEngine, `e${i}`)
      }
      engineMs.push(viaEngine)
      directMs.push(viaClient)
      differences.push(viaEngine - viaClient)
    }
    const round = (value: number) => Math.round(value * 1000) / 1000
    return [{
      name: 'mcp.tool_call_overhead_ms',
      value: round(Math.max(0, percentile(differences, 50))),
      unit: 'ms',
      lowerIsBetter: true,
      context: {
        pairs: PAIRS, server: 'server-everything (npm) over stdio, in the hub sandbox', tool: 'echo (READ)',
        engineP50: round(percentile(engineMs, 50)), directP50: round(percentile(directMs, 50)), differenceP95: round(percentile(differences, 95)), goal: '< 2 ms',
      },
    }]
  }
  finally {
    await runtime.manager.close()
    await database.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
