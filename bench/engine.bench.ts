// The agent engine's own cost per ReAct step (issue 19): policy check, input validation, step
// rows, run counters, conversation — everything but the model and the tool. The model is a
// zero-latency in-process loopback (scripted turns: one READ tool call per turn, then an
// answer) and the tool answers at once. A step's cost is the marginal one: a run of STEPS
// steps minus a run of one step (what every run pays once — its row, its end, the ledger
// cost — is not a step's), divided by STEPS - 1; the figure is its p50 over RUNS pairs, on
// native PostgreSQL. Goal: < 5 ms.
import { randomUUID } from 'node:crypto'
import type { ToolChatRequest, ToolChatResult } from '#layers/ai/core/tool-chat'
import { firstToolRegistry } from '#layers/agents/core/engine/first-tools'
import { startRun, type EngineDeps } from '#layers/agents/core/engine/loop'
import type { ToolPorts } from '#layers/agents/core/engine/ports'
import { percentile, sized, type BenchFigure } from './lib'
import { nativeBenchDatabase } from './databases'

// BENCH_SIZE=tiny (bench/lib.ts): 3 pairs of runs of 5 steps and of one.
const STEPS = sized(20, 5)
const RUNS = sized(40, 3)
const WARMUP_RUNS = sized(3, 1)

function loopbackModel(): (request: ToolChatRequest) => Promise<ToolChatResult> {
  return async (request) => {
    const turn = request.messages.filter(message => message.role === 'assistant').length
    const steps = Number(/steps=(\d+)/.exec(String((request.messages[0] as { content: string }).content))?.[1] ?? STEPS)
    const toolCalls = turn < steps - 1 ? [{ id: `c${turn}`, name: 'recall_memory', input: { query: `q${turn}` }, rawArguments: `{"query":"q${turn}"}` }] : []
    return {
      content: toolCalls.length > 0 ? '' : 'done', toolCalls, provider: 'offline', via: 'local', model: 'loopback', tokensIn: 10, tokensOut: 5,
      durationMs: 0, offline: true, failoverChain: [], callId: randomUUID(),
    }
  }
}

const instantPorts = new Proxy({}, { get: () => async () => [] }) as ToolPorts

export default async function (): Promise<BenchFigure[]> {
  const database = await nativeBenchDatabase('engine', { max: 3 })
  try {
    const deps: EngineDeps = { db: database.db, chat: loopbackModel(), registry: firstToolRegistry(), ports: instantPorts }
    const context = {
      surface: 'api' as const, actingUser: { id: null, email: 'bench@studio.test', role: 'operator' as const },
      agent: { codename: 'personal:bench@studio.test', ownerEmail: 'bench@studio.test' }, regime: 'user' as const, request: `bench steps=${STEPS}`,
      budget: { iterations: STEPS + 1, tokens: 5_000_000 },
    }
    for (let i = 0; i < WARMUP_RUNS; i++) await startRun(deps, context)
    const timed = async (steps: number) => {
      const started = process.hrtime.bigint()
      const run = await startRun(deps, { ...context, request: `bench steps=${steps}` })
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      if (run.status !== 'succeeded' || run.iterations !== steps) throw new Error(`bench run ended ${run.status} after ${run.iterations} steps (${run.error})`)
      return ms
    }
    const perStep: number[] = []
    const perRun: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const one = await timed(1)
      const long = await timed(STEPS)
      perRun.push(one)
      perStep.push(Math.max(0, long - one) / (STEPS - 1))
    }
    return [{
      name: 'engine.overhead_ms_per_step',
      value: Math.round(percentile(perStep, 50) * 1000) / 1000,
      unit: 'ms',
      lowerIsBetter: true,
      context: { database: 'native', steps: STEPS, runs: RUNS, oneStepRunMsP50: Math.round(percentile(perRun, 50) * 1000) / 1000, p95: Math.round(percentile(perStep, 95) * 1000) / 1000, goal: '< 5 ms', model: 'in-process loopback, zero latency', tool: 'READ, instant' },
    }]
  }
  finally {
    await database.close()
  }
}
