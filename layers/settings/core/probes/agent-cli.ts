// The agent CLI's test: `<agent> --version` run the way a spawn runs the agent: in a throwaway
// spawn folder, with the agent's environment (no hub secret, no credential), confined by the
// sandbox SPAWN_SANDBOX names (srt or bubblewrap), as the agent's user when the worker is root.
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { SpawnConfig } from '#layers/spawn/core/config'
import { agentEnvironment, confinedCommand, makeSrtRuntimeDir, sandboxPolicy, srtSettings, type Env } from '#layers/spawn/core/sandbox'
import { prepareWorkspace, resolveAgentUser } from '#layers/spawn/core/workspace'
import { findBinary } from '#layers/spawn/core/wrapper-args'
import { formatSeconds } from './words'

export interface AgentCliProbeDeps {
  env: Env
  config: SpawnConfig
  deadlineMs: number
  isRoot?: boolean
}

export async function probeAgentCli(deps: AgentCliProbeDeps): Promise<string> {
  const { config, deadlineMs } = deps
  const isRoot = deps.isRoot ?? process.getuid?.() === 0
  const user = isRoot ? await resolveAgentUser(config.agentUser) : null
  const workspace = await prepareWorkspace({ root: config.spawnRoot, spawnId: `cli-check-${randomUUID()}`, repository: null, owner: user, timeoutMs: deadlineMs })
  let runtimeDir: string | undefined
  try {
    const env = agentEnvironment(deps.env, config, workspace, {}, null)
    const binary = findBinary(config.agentBin, env)
    if (!binary) throw new Error(`"${config.agentBin}" is not on the agent's PATH (SPAWN_AGENT_BIN)`)
    const policy = sandboxPolicy(config, workspace, { agentBin: binary, user, modelHost: null })
    let settingsFile: string | undefined
    if (policy.mode === 'srt') {
      runtimeDir = makeSrtRuntimeDir(user)
      settingsFile = join(workspace.dir, 'srt-settings.json')
      writeFileSync(settingsFile, JSON.stringify(srtSettings(policy, runtimeDir)), { mode: 0o644 })
    }
    const command = confinedCommand(policy, binary, ['--version'], env, settingsFile, runtimeDir)
    const output = await run(command.file, command.args, command.env, workspace.workDir, deadlineMs)
    const version = output.split('\n').map(line => line.trim()).find(Boolean) ?? ''
    if (!version) throw new Error(`${binary} --version printed nothing in the ${policy.mode} sandbox`)
    return `${version} (${binary}, ${policy.mode === 'none' ? 'no sandbox' : `in the ${policy.mode} sandbox`}${user ? ` as ${user.name}` : ''})`
  }
  finally {
    rmSync(workspace.dir, { recursive: true, force: true })
    if (runtimeDir) rmSync(runtimeDir, { recursive: true, force: true })
  }
}

function run(file: string, args: string[], env: Record<string, string>, cwd: string, deadlineMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, cwd, timeout: deadlineMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout)
      const { killed, code } = error as { killed?: boolean, code?: string | number }
      if (killed) return reject(new Error(`timed out after ${formatSeconds(deadlineMs)} running --version`))
      if (code === 'ENOENT') return reject(new Error(`${file} could not be started (not found)`))
      const said = `${stderr}`.trim().split('\n').slice(-3).join(' ') || `${stdout}`.trim().split('\n').slice(-1)[0] || error.message
      reject(new Error(`--version failed (exit ${code}): ${said.slice(0, 400)}`))
    })
  })
}
