// The pseudo-terminal wrapper as a real process, driving the stand-in agent through node-pty:
// argument order, the environment, the protocol's events as JSONL, exit codes, the first
// result as the end, the timeout killing the whole group (and a helper that left it), the
// crash, garbage and half lines, a 50 MB flood streamed with bounded memory, bad arguments.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { isAlive } from '#layers/spawn/core/processes'
import { runWrapper, type WrapperRun } from '../fixtures/wrapper'

const runs: WrapperRun[] = []
async function wrap(...args: Parameters<typeof runWrapper>) {
  const run = await runWrapper(...args)
  runs.push(run)
  return run
}
afterEach(() => {
  for (const run of runs.splice(0)) run.cleanup()
})

const types = (run: WrapperRun) => run.events.map(event => event.type)
const exitEvent = (run: WrapperRun) => run.events.find(event => event.type === 'node_pty_exit')!

describe('the pseudo-terminal wrapper', { timeout: 60_000 }, () => {
  it('passes --add-dir first, valued flags as --flag=value and the prompt last after --, runs the agent in a 200×50 xterm-color terminal leading its own group, and removes nested-session variables', async () => {
    const envFile = '/tmp/spawn-wrapper-env-' + process.pid + '.json'
    const ttyFile = '/tmp/spawn-wrapper-tty-' + process.pid + '.json'
    const run = await wrap({ variant: 'fast', env: { CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'cli', SYNEDRE_KEEP_ME: 'yes', STAND_IN_ENV_FILE: envFile, STAND_IN_TTY_FILE: ttyFile } })
    // A real terminal, xterm-color at 200×50, the agent leading its own group and session.
    const tty = JSON.parse(readFileSync(ttyFile, 'utf8')) as { isTTY: boolean, columns: number, rows: number, term: string, pid: number, pgid: number, sid: number }
    expect(tty).toMatchObject({ isTTY: true, columns: 200, rows: 50, term: 'xterm-color' })
    expect(tty.pgid).toBe(tty.pid)
    expect(tty.sid).toBe(tty.pid)
    const args = JSON.parse(readFileSync(run.argsFile, 'utf8')) as string[]
    expect(args[0]).toBe(`--add-dir=${join(run.dir, 'work')}`)
    expect(args.slice(1, 9)).toEqual(['-p', '--verbose', '--output-format=stream-json', '--include-partial-messages', '--no-session-persistence', '--model=sonnet', '--system-prompt=You are Atlas.', '--permission-mode=acceptEdits'])
    expect(args.at(-2)).toBe('--')
    expect(args.at(-1)).toBe('# Atlas request\nPlease fix the contact form.')
    // Every valued flag in its --flag=value form: nothing between the flags but flags.
    expect(args.slice(0, -2).every(arg => arg.startsWith('-'))).toBe(true)
    const names = JSON.parse(readFileSync(envFile, 'utf8')) as string[]
    expect(names).toContain('SYNEDRE_KEEP_ME')
    expect(names).toContain('SYNEDRE_SPAWN_ID')
    expect(names).not.toContain('CLAUDECODE')
    expect(names.filter(name => name.startsWith('CLAUDE_CODE_'))).toEqual([])
  })

  it('prints the protocol as JSONL with node_pty_spawn first and node_pty_exit last, tees it to the log, and exits 0', async () => {
    const run = await wrap({ variant: 'success' })
    expect(run.code).toBe(0)
    expect(types(run)[0]).toBe('node_pty_spawn')
    expect(types(run).at(-1)).toBe('node_pty_exit')
    expect(types(run)).toEqual(expect.arrayContaining(['system', 'stream_event', 'assistant', 'user', 'result']))
    const subtypes = run.events.filter(e => e.type === 'system').map(e => e.subtype)
    expect(subtypes).toEqual(expect.arrayContaining(['init', 'hook_started', 'hook_response']))
    expect(run.streamEvents).toBeGreaterThan(5)
    // The stand-in lingers a minute after its result: the wrapper ended it after the drain.
    expect(exitEvent(run)).toMatchObject({ result_seen: true, is_error: false, timed_out: false, stopped_because: 'result_received' })
    const logged = readFileSync(run.logFile, 'utf8').trim().split('\n')
    expect(logged.length).toBe(run.lines)
    expect(JSON.parse(logged.at(-1)!)).toMatchObject({ type: 'node_pty_exit' })
    expect(JSON.parse(readFileSync(run.resultFile, 'utf8'))).toMatchObject({ status: 'ok' })
  })

  it('exits 1 on a result with is_error: true', async () => {
    const run = await wrap({ variant: 'error-result' })
    expect(run.code).toBe(1)
    expect(run.events.find(e => e.type === 'result')).toMatchObject({ subtype: 'error_during_execution', is_error: true, errors: ['API Error: 529 Overloaded'] })
    expect(exitEvent(run)).toMatchObject({ result_seen: true, is_error: true })
  })

  it('kills the whole group at the timeout, including a helper that left it, and leaves the early checkpoint', async () => {
    const helperPidFile = '/tmp/spawn-wrapper-helper-' + process.pid
    let agentPid = 0
    const run = await wrap({ variant: 'checkpoint-hang', timeoutSec: 2, killGraceMs: 500, env: { STAND_IN_HELPER_PID_FILE: helperPidFile }, onEvent: (event) => {
      if (event.type === 'node_pty_spawn') agentPid = event.pid as number
    } })
    expect(run.code).toBe(1)
    expect(types(run)).toContain('wrapper_timeout')
    expect(exitEvent(run)).toMatchObject({ timed_out: true, result_seen: false, stopped_because: 'timeout' })
    const helperPid = Number(readFileSync(helperPidFile, 'utf8'))
    expect(helperPid).toBeGreaterThan(0)
    expect(isAlive(agentPid)).toBe(false)
    expect(isAlive(helperPid)).toBe(false)
    expect(JSON.parse(readFileSync(run.resultFile, 'utf8'))).toMatchObject({ status: 'in_progress', summary: expect.stringContaining('Partial diagnostic') })
  })

  it('reports a crash: exit 1, the agent\'s exit code, no result', async () => {
    const run = await wrap({ variant: 'crash' })
    expect(run.code).toBe(1)
    expect(exitEvent(run)).toMatchObject({ exit_code: 3, result_seen: false, timed_out: false })
    expect(existsSync(run.resultFile)).toBe(false)
  })

  it('turns ANSI escapes, CRLF, noise and lines split across writes into clean events, keeping unknown types', async () => {
    const run = await wrap({ variant: 'garbage' })
    expect(run.code).toBe(0)
    const half = run.events.find(e => e.type === 'assistant' && (e.message as { id?: string }).id === 'msg_half')
    expect(half).toBeDefined()
    expect(run.events.find(e => e.type === 'mystery_event')).toMatchObject({ detail: { kept: true } })
    const noise = run.events.filter(e => e.type === 'wrapper_noise').map(e => e.text)
    expect(noise).toEqual(expect.arrayContaining(['Welcome to the agent', 'some progress bar ████ 40%', '{"type":"assistant","message":{"truncated', 'not json at all']))
    expect(noise.join('')).not.toContain('\u001B')
    expect(noise.join('')).not.toContain('\r')
    expect(exitEvent(run)).toMatchObject({ result_seen: true, noise_lines: 4 })
  })

  it('streams 50 MB of output without holding it: every line arrives, the result is found, memory stays bounded', async () => {
    const run = await wrap({ variant: 'flood', timeoutSec: 300 })
    expect(run.code).toBe(0)
    expect(run.bytes).toBeGreaterThan(50 * 1024 * 1024)
    const exit = exitEvent(run)
    expect(exit).toMatchObject({ result_seen: true, noise_lines: 0 })
    expect(run.streamEvents).toBe((run.events.find(e => e.type === 'result') as { num_turns: number }).num_turns)
    // Holding 50 MB of JSON as strings would take well over 100 MB more than a bare Node process.
    expect(exit.max_rss_bytes as number).toBeLessThan(200 * 1024 * 1024)
  }, 300_000)

  it('treats the result file as the contract when the child exits at once after its result', async () => {
    const run = await wrap({ variant: 'fast' })
    expect(run.code).toBe(0)
    expect(JSON.parse(readFileSync(run.resultFile, 'utf8'))).toMatchObject({ status: 'ok' })
    expect(exitEvent(run)).toMatchObject({ exit_code: 0, timed_out: false })
  })

  it('stops the agent when its parent goes away (stdin closed)', async () => {
    let agentPid = 0
    const run = await wrap({ variant: 'hang', timeoutSec: 60, onEvent: (event, control) => {
      if (event.type === 'node_pty_spawn') {
        agentPid = event.pid as number
        control.closeStdin()
      }
    } })
    expect(run.code).toBe(1)
    expect(exitEvent(run)).toMatchObject({ parent_gone: true, stopped_because: 'parent_gone' })
    expect(agentPid).toBeGreaterThan(0)
    expect(isAlive(agentPid)).toBe(false)
  })

  it.each([
    ['a missing --add-dir', (p: { prompt: string, system: string, log: string }) => ['--id', 'x', '--prompt-file', p.prompt, '--system-prompt-file', p.system, '--stream-log', p.log], /--add-dir is required/],
    ['an unreadable prompt file', (p: { work: string, system: string, log: string }) => ['--id', 'x', '--prompt-file', '/nonexistent/prompt.md', '--system-prompt-file', p.system, '--stream-log', p.log, '--add-dir', p.work], /--prompt-file \/nonexistent\/prompt.md: cannot be read/],
    ['a bad timeout', (p: { work: string, prompt: string, system: string, log: string }) => ['--id', 'x', '--prompt-file', p.prompt, '--system-prompt-file', p.system, '--stream-log', p.log, '--add-dir', p.work, '--timeout-sec', 'soon'], /--timeout-sec must be a whole number/],
    ['an unknown flag', (p: { work: string, prompt: string, system: string, log: string }) => ['--id', 'x', '--prompt-file', p.prompt, '--system-prompt-file', p.system, '--stream-log', p.log, '--add-dir', p.work, '--yolo'], /Unknown option '--yolo'/],
  ])('exits 2 on %s, naming the problem', async (_label, args, message) => {
    const run = await wrap({ variant: 'success', args: args as never })
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(message)
    expect(run.lines).toBe(0)
  })

  it('exits 1 with a clear event when the agent binary cannot be found', async () => {
    const run = await wrap({ variant: 'success', extraArgs: ['--agent-bin', 'no-such-agent-binary'] })
    expect(run.code).toBe(1)
    expect(run.events[0]).toMatchObject({ type: 'node_pty_error', error: 'agent_not_found' })
  })
})
