// What the MCP servers need from layers the agents layer may not import (issue 35, Deliver 1):
// the coding agent's kind of sandbox around a stdio server's command, and spawn's untrusted
// fencing for their results. A stdio server runs in bubblewrap as spawns do (its own PID,
// network and IPC namespaces — no network at all —, an empty root with only the system's
// programs and this Node bound read-only, the environment cleared to the variables named for
// it): it reads and writes only its own folder DATA_DIR/mcp/<name> (its working directory and
// home), and reads the absolute paths of its arguments (a script under node_modules: that whole
// node_modules, read-only). SPAWN_SANDBOX=srt also means bubblewrap here: srt adds only its
// network proxy, and a stdio server gets no network. SPAWN_SANDBOX=none runs it as is (refused as root).
import { existsSync, mkdirSync, realpathSync } from 'node:fs'
import { delimiter, dirname, isAbsolute, join, sep } from 'node:path'
import type { Db } from '#db/connection'
import { readHttpAllowlist } from '#layers/agents/core/mcp/config'
import type { McpManagerDeps, WrapCommand } from '#layers/agents/core/mcp/connections'
import { createMcpRuntime, type McpRuntime } from '#layers/agents/core/mcp/runtime'
import { readSandboxMode } from '#layers/spawn/core/config'
import { confinedCommand, type SandboxPolicy } from '#layers/spawn/core/sandbox'
import { readToolchain } from '#layers/spawn/core/toolchain'
import { untrustedFence } from './webhook-wiring'

type Env = Record<string, string | undefined>

/** The top-most node_modules folder holding a path (a package's dependencies live beside it), else the path. */
function readableRoot(path: string): string {
  const parts = path.split(sep)
  const index = parts.indexOf('node_modules')
  return index > 0 ? parts.slice(0, index + 1).join(sep) : path
}

function resolveCommand(command: string, env: Env): string {
  if (isAbsolute(command)) return command
  if (command === 'node') return process.execPath
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, command)
    if (existsSync(candidate)) return candidate
  }
  throw new Error(`the command ${command} is not on the hub's PATH`)
}

export function mcpWrapCommand(env: Env, dataDir: string, isRoot = process.getuid?.() === 0): WrapCommand {
  return (launch) => {
    // Read at each launch: a configuration error stops this server (its status says why), nothing else.
    const mode = readSandboxMode(env, isRoot)
    const toolchain = readToolchain(env)
    const folder = join(dataDir, 'mcp', launch.server)
    const homeDir = join(folder, '.home')
    const tmpDir = join(folder, '.tmp')
    for (const dir of [folder, homeDir, tmpDir]) mkdirSync(dir, { recursive: true, mode: 0o700 })
    const binary = resolveCommand(launch.command, env)
    const inner = { ...launch.env, PATH: `${dirname(binary)}${delimiter}/usr/bin:/bin`, HOME: homeDir, TMPDIR: tmpDir }
    if (mode === 'none') return { command: binary, args: launch.args, env: inner }
    const readable = new Set<string>()
    for (const path of [binary, ...launch.args.filter(arg => isAbsolute(arg) && existsSync(arg))]) {
      const root = readableRoot(path)
      readable.add(root)
      readable.add(realpathSync(root))
    }
    const policy: SandboxPolicy = {
      mode: 'bwrap', workDir: folder, homeDir, outDir: folder, tmpDir,
      toolchain: toolchain.filter(path => existsSync(path)), hidden: [], readable: [...readable], allowHosts: [], user: null,
    }
    const confined = confinedCommand(policy, binary, launch.args, inner)
    return { command: confined.file, args: confined.args, env: confined.env }
  }
}

export interface HubMcpInput extends Pick<McpManagerDeps, 'backoff' | 'onChange'> {
  db: Db
  env: Env
  dataDir: string
  log: (line: string) => void
}

export function hubMcpRuntime(input: HubMcpInput): McpRuntime {
  return createMcpRuntime({
    ...(input.backoff ? { backoff: input.backoff } : {}),
    ...(input.onChange ? { onChange: input.onChange } : {}),
    db: input.db,
    env: input.env,
    wrapCommand: mcpWrapCommand(input.env, input.dataDir),
    httpAllowlist: readHttpAllowlist(input.env),
    fence: untrustedFence,
    log: input.log,
  })
}
