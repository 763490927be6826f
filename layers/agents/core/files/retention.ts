// Agent files do not outlive their run: a run's deletion removes them (ON DELETE CASCADE), and
// the lock-guardian's cycle removes the files of runs older than AGENT_FILES_RETENTION_DAYS
// and the uploads no chat turn or run took within AGENT_FILES_UNATTACHED_HOURS.
import { and, inArray, isNull, lt } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { agentFiles } from '#db/schema/agent-files'
import { agentRuns } from '#db/schema/agent-runs'
import type { FileLimits } from './limits'

export interface FileSweep { expired: number, unattached: number }

export async function sweepAgentFiles(db: Db, limits: Pick<FileLimits, 'retentionDays' | 'unattachedHours'>, now = new Date()): Promise<FileSweep> {
  const runsBefore = new Date(now.getTime() - limits.retentionDays * 24 * 3600_000)
  const uploadsBefore = new Date(now.getTime() - limits.unattachedHours * 3600_000)
  const oldRuns = db.select({ id: agentRuns.id }).from(agentRuns).where(lt(agentRuns.createdAt, runsBefore))
  const expired = await db.delete(agentFiles).where(inArray(agentFiles.runId, oldRuns)).returning({ id: agentFiles.id })
  const unattached = await db
    .delete(agentFiles)
    .where(and(isNull(agentFiles.runId), lt(agentFiles.createdAt, uploadsBefore)))
    .returning({ id: agentFiles.id })
  return { expired: expired.length, unattached: unattached.length }
}
