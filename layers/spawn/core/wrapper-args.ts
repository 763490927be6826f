// The pseudo-terminal wrapper's own command line (what the spawn worker passes it), parsed
// and checked before anything starts: a bad argument exits 2 with the problem named.
//   spawn-pty --id <spawn id> --prompt-file <path> --system-prompt-file <path> --model sonnet
//             --stream-log <path> --add-dir <dir> --timeout-sec 2400
//             [--agent-bin <path|name>] [--permission-mode acceptEdits] [--kill-grace-ms 5000] [--drain-ms 2000]
//             [--sandbox-file <spawn folder>/sandbox.json]   (the confinement; none without it)
//             [--mcp-config <spawn folder>/mcp.json] [--allowed-tools a,b] [--disallowed-tools c,d]
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'
import { parseArgs } from 'node:util'

export interface WrapperArgs {
  id: string
  promptFile: string
  systemPromptFile: string
  model: string
  streamLog: string
  addDir: string
  timeoutSec: number
  agentBin: string
  permissionMode: string
  killGraceMs: number
  drainMs: number
  sandboxFile: string | null
  mcpConfig: string | null
  allowedTools: string[]
  disallowedTools: string[]
}

export class WrapperUsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'WrapperUsageError'
  }
}

function positiveInteger(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min) throw new WrapperUsageError(`--${name} must be a whole number ≥ ${min}, got "${raw}"`)
  return value
}

function readable(name: string, path: string | undefined): string {
  if (!path) throw new WrapperUsageError(`--${name} is required`)
  try {
    if (!statSync(path).isFile()) throw new Error('not a file')
    accessSync(path, constants.R_OK)
  }
  catch (error) {
    throw new WrapperUsageError(`--${name} ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  return path
}

/** A comma-separated list of tool names (`mcp__server__tool`): nothing that could read as another option. */
function toolList(name: string, raw: string | undefined): string[] {
  const items = (raw ?? '').split(',').map(item => item.trim()).filter(Boolean)
  const bad = items.find(item => !/^[\w.-]{1,200}$/.test(item))
  if (bad !== undefined) throw new WrapperUsageError(`--${name}: not a tool name: "${bad.slice(0, 100)}"`)
  return items
}

export function parseWrapperArgs(argv: string[], env: Readonly<Record<string, string | undefined>> = process.env): WrapperArgs {
  let values
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'id': { type: 'string' },
        'prompt-file': { type: 'string' },
        'system-prompt-file': { type: 'string' },
        'model': { type: 'string' },
        'stream-log': { type: 'string' },
        'add-dir': { type: 'string' },
        'timeout-sec': { type: 'string' },
        'agent-bin': { type: 'string' },
        'permission-mode': { type: 'string' },
        'kill-grace-ms': { type: 'string' },
        'drain-ms': { type: 'string' },
        'sandbox-file': { type: 'string' },
        'mcp-config': { type: 'string' },
        'allowed-tools': { type: 'string' },
        'disallowed-tools': { type: 'string' },
      },
    }))
  }
  catch (error) {
    throw new WrapperUsageError((error as Error).message)
  }
  const id = values.id?.trim()
  if (!id || !/^[\w.:-]{1,100}$/.test(id)) throw new WrapperUsageError('--id is required (letters, digits, _ . : - only)')
  const addDir = values['add-dir']
  if (!addDir) throw new WrapperUsageError('--add-dir is required (the folder the agent may work in)')
  try {
    if (!statSync(addDir).isDirectory()) throw new Error('not a directory')
  }
  catch (error) {
    throw new WrapperUsageError(`--add-dir ${addDir}: not a directory (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  const streamLog = values['stream-log']
  if (!streamLog) throw new WrapperUsageError('--stream-log is required (where the JSONL is teed)')
  const model = values.model ?? 'sonnet'
  if (!/^[\w.:-]+$/.test(model)) throw new WrapperUsageError(`--model: not a model name: "${model}"`)
  return {
    id,
    promptFile: readable('prompt-file', values['prompt-file']),
    systemPromptFile: readable('system-prompt-file', values['system-prompt-file']),
    model,
    streamLog,
    addDir,
    timeoutSec: positiveInteger('timeout-sec', values['timeout-sec'], 2400),
    agentBin: values['agent-bin'] || env.SPAWN_AGENT_BIN?.trim() || 'claude',
    permissionMode: values['permission-mode'] ?? 'acceptEdits',
    killGraceMs: positiveInteger('kill-grace-ms', values['kill-grace-ms'], 5000, 0),
    drainMs: positiveInteger('drain-ms', values['drain-ms'], 2000, 0),
    sandboxFile: values['sandbox-file'] ? readable('sandbox-file', values['sandbox-file']) : null,
    mcpConfig: values['mcp-config'] ? readable('mcp-config', values['mcp-config']) : null,
    allowedTools: toolList('allowed-tools', values['allowed-tools']),
    disallowedTools: toolList('disallowed-tools', values['disallowed-tools']),
  }
}

/** The agent binary: a path as given, or the first executable of that name on PATH. */
export function findBinary(name: string, env: Readonly<Record<string, string | undefined>> = process.env): string | null {
  const executable = (path: string) => {
    try {
      accessSync(path, constants.X_OK)
      return statSync(path).isFile()
    }
    catch {
      return false
    }
  }
  if (name.includes('/')) return executable(name) ? (isAbsolute(name) ? name : join(process.cwd(), name)) : null
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name)
    if (executable(candidate)) return candidate
  }
  return null
}
