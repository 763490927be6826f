// Real processes for system tests: the automates CLI, the supervisor, the launcher.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface Finished { code: number | null, signal: NodeJS.Signals | null, output: string }

export interface Running {
  child: ChildProcess
  output: () => string
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<void>
  exited: Promise<Finished>
}

/** Starts `node --import tsx <script> ...args` from the project root, capturing stdout+stderr. */
export function startTs(script: string, args: string[], options: SpawnOptions & { env?: NodeJS.ProcessEnv, input?: string } = {}): Running {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    ...options,
    env: { ...process.env, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let output = ''
  const listeners = new Set<() => void>()
  const collect = (chunk: Buffer) => {
    output += chunk.toString()
    for (const listener of listeners) listener()
  }
  child.stdout!.on('data', collect)
  child.stderr!.on('data', collect)
  if (options.input !== undefined) child.stdin!.end(options.input)
  else child.stdin!.end()
  const exited = new Promise<Finished>(resolve => child.once('exit', (code, signal) => resolve({ code, signal, output })))
  return {
    child,
    output: () => output,
    exited,
    waitFor: (pattern, timeoutMs = 120_000) => new Promise<void>((resolve, reject) => {
      const check = () => {
        if (pattern.test(output)) {
          listeners.delete(check)
          clearTimeout(timer)
          resolve()
        }
      }
      const timer = setTimeout(() => {
        listeners.delete(check)
        reject(new Error(`timed out waiting for ${pattern} in:\n${output}`))
      }, timeoutMs)
      listeners.add(check)
      void exited.then(() => {
        if (!pattern.test(output)) {
          listeners.delete(check)
          clearTimeout(timer)
          reject(new Error(`process exited before ${pattern} appeared:\n${output}`))
        }
      })
      check()
    }),
  }
}

export async function runTs(
  script: string,
  args: string[],
  options: SpawnOptions & { env?: NodeJS.ProcessEnv, input?: string } = {},
): Promise<Finished> {
  return await startTs(script, args, options).exited
}
