// A spawn's own folder, never the hub's checkout: <SPAWN_ROOT>/spawn-<id>/ holding
//   work/  a checkout (git clone) of the tenant's repository (clients.config.repository, else
//          SPAWN_DEFAULT_REPOSITORY, else an empty repository): the agent's working folder;
//   home/  its HOME;  out/  its result file;  tmp/  its TMPDIR.
// Owned by the spawn's own uid (mode 0700) while the agent runs when the worker is root, then
// handed back to the worker (its deploy runs git in the checkout, and a kept folder must stay
// unreadable to every later spawn, whatever uid it gets). Removed when the spawn ends, or kept
// as evidence by SPAWN_KEEP_WORKDIR (never | failed | always).
// The checkout's .git/info/exclude names the placeholders srt lays over its protected paths
// (see SRT_PLACEHOLDERS).
import { execFile } from 'node:child_process'
import { appendFileSync, chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
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

/**
 * What srt write-protects in the agent's working folder whatever the settings (its
 * DANGEROUS_FILES and getDangerousDirectories(), dist/sandbox/sandbox-utils.js; the unit tests
 * compare this list with srt's). One that does not exist is stood in for by a mount point bwrap
 * creates: /dev/null (a character device) at the first missing component. `git add -A` then
 * fails on it ("can only add regular files"; an empty-file mount point would be committed
 * instead). Ignored in the checkout, they are invisible to git; the agent could not write
 * them anyway.
 */
export const SRT_PLACEHOLDERS = [
  '.gitconfig', '.gitmodules', '.bashrc', '.bash_profile', '.zshrc', '.zprofile', '.profile', '.ripgreprc', '.mcp.json',
  '.vscode', '.idea', '.claude/commands', '.claude/agents',
]

/** Ignores srt's placeholders in this checkout only (untracked files; a tracked one stays tracked). */
export function excludeSandboxPlaceholders(workDir: string): void {
  const info = join(workDir, '.git', 'info')
  mkdirSync(info, { recursive: true })
  appendFileSync(join(info, 'exclude'), `\n# The sandbox's write-protected paths (srt's placeholders), never the agent's work\n${SRT_PLACEHOLDERS.map(path => `/${path}`).join('\n')}\n`)
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

/** The tenant's branch: checked again here (the hub's check may be older than this code). */
export function checkBranch(branch: string): string {
  const value = branch.trim()
  if (!value || value.startsWith('-') || /[\0\s~^:?*[\\]/.test(value)) throw new WorkspaceError(`not a branch name: "${branch}"`)
  return value
}

/** branch: the one cloned (and committed on by the agent); null: the repository's default (an empty repository's own). */
export async function prepareWorkspace(input: {
  root: string
  spawnId: string
  repository: string | null
  branch?: string | null
  owner: AgentUser | null
  timeoutMs?: number
}): Promise<Workspace> {
  const paths = workspacePaths(input.root, input.spawnId)
  mkdirSync(input.root, { recursive: true })
  // Others may traverse the root (the agent's user reaches its own folder) but not list it.
  chmodSync(input.root, 0o711)
  rmSync(paths.dir, { recursive: true, force: true })
  mkdirSync(paths.dir, { mode: 0o700 })
  for (const dir of [paths.homeDir, paths.outDir, paths.tmpDir]) mkdirSync(dir, { mode: 0o700 })
  const timeout = input.timeoutMs ?? 300_000
  const repository = input.repository ? checkRepository(input.repository) : null
  const branch = input.branch ? checkBranch(input.branch) : null
  try {
    if (repository)
      await run('git', ['clone', '--quiet', '--no-hardlinks', ...(branch ? ['--branch', branch] : []), '--', repository, paths.workDir], {
        timeout,
      })
    else {
      mkdirSync(paths.workDir)
      await run('git', ['init', '--quiet', ...(branch ? [`--initial-branch=${branch}`] : []), paths.workDir], { timeout })
    }
  }
  catch (error) {
    rmSync(paths.dir, { recursive: true, force: true })
    throw new WorkspaceError(
      `the tenant's repository could not be checked out (${repository ?? 'empty'}${branch ? `, branch ${branch}` : ''}): ${((error as { stderr?: string }).stderr || (error as Error).message).trim().split('\n').slice(-3).join(' ')}`,
    )
  }
  excludeSandboxPlaceholders(paths.workDir)
  // Commits carry the agent's name; the git identity is not a secret.
  writeFileSync(join(paths.homeDir, '.gitconfig'), '[user]\n\tname = Atlas agent\n\temail = atlas-agent@localhost\n')
  if (input.owner) {
    await run('chown', ['-R', `${input.owner.uid}:${input.owner.gid}`, paths.dir])
  }
  return { ...paths, repository }
}

/**
 * The folder back to the worker's user once the agent and all its processes are gone:
 * `chown -R` changes links themselves, never what they point to (-P is its default).
 */
export async function handBackWorkspace(workspace: Pick<Workspace, 'dir'>, to: { uid: number, gid: number }): Promise<void> {
  try {
    await run('chown', ['-R', '-P', `${to.uid}:${to.gid}`, workspace.dir])
  }
  catch (error) {
    throw new WorkspaceError(`the spawn's folder ${workspace.dir} could not be handed back to ${to.uid}:${to.gid}: ${((error as { stderr?: string }).stderr || (error as Error).message).trim().split('\n').slice(-3).join(' ')}`)
  }
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
