// Who the agent of one spawn runs as, and who owns its folder when. A root worker gives each
// spawn a uid of its own (SPAWN_AGENT_UIDS; or the one SPAWN_AGENT_USER when that is `none`);
// the folder is that uid's while the agent runs, then handed back to the worker (deploy, kept
// evidence), and the uid is freed with it. A worker that is not root runs every agent as
// itself: the sandbox's mount namespace is then the only wall between spawns.
import { allocateSpawnUid, releaseSpawnUid } from './spawn-uid'
import type { WorkerDeps } from './worker-deps'
import { handBackWorkspace, resolveAgentUser, type AgentUser, type Workspace } from './workspace'

export interface SpawnUser {
  /** What the agent runs as (null: the worker's own user). */
  user: AgentUser | null
  /** The folder back to the worker once every process of the agent is gone (done once; says whether it worked). */
  handBack: (workspace: Pick<Workspace, 'dir'>) => Promise<boolean>
  /** At the very end: the uid freed unless its folder is kept and still its own. */
  end: (disposed: 'kept' | 'removed') => Promise<void>
}

export async function spawnUserFor(deps: Pick<WorkerDeps, 'agentUser' | 'log'> & { config: Pick<WorkerDeps['config'], 'agentUids' | 'agentUser' | 'spawnRoot' | 'killGraceMs'> }, spawnId: string, isRoot = process.getuid?.() === 0): Promise<SpawnUser> {
  const worker = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 }
  let user: AgentUser | null
  let allocated = false
  if (deps.agentUser !== undefined) user = deps.agentUser
  else if (!isRoot) user = null
  else if (deps.config.agentUids) {
    user = allocateSpawnUid(deps.config.agentUids, deps.config.spawnRoot, spawnId)
    allocated = true
  }
  else user = await resolveAgentUser(deps.config.agentUser)
  // Only root can give a folder away and take it back.
  const owns = user !== null && isRoot
  let handedBack: Promise<boolean> | null = null
  let back = false
  const handBack = (workspace: Pick<Workspace, 'dir'>) => {
    handedBack ??= (owns ? handBackWorkspace(workspace, worker) : Promise.resolve()).then(() => (back = true), (error: Error) => {
      deps.log(`[atlas-spawn-worker] spawn ${spawnId}: ${error.message}`)
      return false
    })
    return handedBack
  }
  return {
    user,
    handBack,
    end: async (disposed) => {
      if (!allocated || !user) return
      // A kept folder still the uid's keeps the uid reserved: reusing it would open the folder to a later spawn.
      if (disposed === 'kept' && !back) {
        deps.log(`[atlas-spawn-worker] spawn ${spawnId}: uid ${user.uid} stays reserved, its kept folder is still its own`)
        return
      }
      await releaseSpawnUid(deps.config.spawnRoot, user, deps.log, deps.config.killGraceMs)
    },
  }
}
