// A spawn's own folder, never the hub's checkout: <SPAWN_ROOT>/spawn-<id>/ holding
//   work/  a checkout (git clone) of the tenant's repository (clients.config.repository, else
//          SPAWN_DEFAULT_REPOSITORY, else an empty repository): the agent's working folder;
//   home/  its HOME;  out/  its result file;  tmp/  its TMPDIR.
// Owned by the agent's user when the worker is root. Removed when the spawn ends, or kept as
// evidence by SPAWN_KEEP_WORKDIR (never | failed | always).
import { execFile } from 'node:child_process'
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { KeepPolicy } from './config'

const run = promisify(execFile)

export interface AgentUser { name: string, uid: number, gid: number }

export interface Workspace {
  dir: string
  workDir: string
  homeDir: string
  outDir: string
  tmpDir: string
  resultFile: string
  /** What was cloned (null: an empty repository). */
  repository: string | null
}

export class WorkspaceError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'WorkspaceError'
  }
}

/** The uid and gid of a user of this machine (the agent's, when the worker is root). */
export async function resolveAgentUser(name: string): Promise<AgentUser> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])])
    return { name, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
  }
  catch (error) {
    throw new WorkspaceError(`the agent's user "${name}" does not exist on this host (SPAWN_AGENT_USER): ${(error as Error).message.split('\n')[0]}`)
  }
}

export function workspacePaths(root: string, spawnId: string): Omit<Workspace, 'repository'> {
  const dir = join(root, `spawn-${spawnId}`)
  return { dir, workDir: join(dir, 'work'), homeDir: join(dir, 'home'), outDir: join(dir, 'out'), tmpDir: join(dir, 'tmp'), resultFile: join(dir, 'out', 'result.json') }
}

/** The tenant's repository: a local path or a git address; refused when it looks like an option. */
export function checkRepository(repository: string): string {
  const value = repository.trim()
  if (!value || value.startsWith('-') || /[\0\n]/.test(value)) throw new WorkspaceError(`not a repository: "${repository}"`)
  return value
}

export async function prepareWorkspace(input: { root: string, spawnId: string, repository: string | null, owner: AgentUser | null, timeoutMs?: number }): Promise<Workspace> {
  const paths = workspacePaths(input.root, input.spawnId)
  mkdirSync(input.root, { recursive: true })
  // Others may traverse the root (the agent's user reaches its own folder) but not list it.
  chmodSync(input.root, 0o711)
  rmSync(paths.dir, { recursive: true, force: true })
  mkdirSync(paths.dir, { mode: 0o700 })
  for (const dir of [paths.homeDir, paths.outDir, paths.tmpDir]) mkdirSync(dir, { mode: 0o700 })
  const timeout = input.timeoutMs ?? 300_000
  const repository = input.repository ? checkRepository(input.repository) : null
  try {
    if (repository) await run('git', ['clone', '--quiet', '--no-hardlinks', '--', repository, paths.workDir], { timeout })
    else {
      mkdirSync(paths.workDir)
      await run('git', ['init', '--quiet', paths.workDir], { timeout })
    }
  }
  catch (error) {
    rmSync(paths.dir, { recursive: true, force: true })
    throw new WorkspaceError(`the tenant's repository could not be checked out (${repository ?? 'empty'}): ${((error as { stderr?: string }).stderr || (error as Error).message).trim().split('\n').slice(-3).join(' ')}`)
  }
  // Commits carry the agent's name; the git identity is not a secret.
  writeFileSync(join(paths.homeDir, '.gitconfig'), '[user]\n\tname = Atlas agent\n\temail = atlas-agent@localhost\n')
  if (input.owner) {
    await run('chown', ['-R', `${input.owner.uid}:${input.owner.gid}`, paths.dir])
  }
  return { ...paths, repository }
}

export function keepWorkspace(policy: KeepPolicy, failed: boolean): boolean {
  return policy === 'always' || (policy === 'failed' && failed)
}

/** Removes the folder unless the policy keeps it; says which. */
export function disposeWorkspace(workspace: Workspace, keep: boolean): 'kept' | 'removed' {
  if (keep) return 'kept'
  rmSync(workspace.dir, { recursive: true, force: true })
  return 'removed'
}
