// The spawn engine's kill switch, from either side: ATLAS_SPAWN_DISABLED=1 in the environment
// (forces it off, whatever the hub says) or the switch a founder turns from the hub, stored in
// spawn_engine_switch (the latest row holds). Off means no job is queued or taken; spawns
// already running finish.
import { desc } from 'drizzle-orm'
import type { Db } from '#db/client'
import { recordAudit } from '#db/audit'
import { spawnEngineSwitch } from '#db/schema/spawn-switch'

/** The switch as the hub last turned it: null when no founder ever turned it (the engine is on). */
export interface StoredSpawnSwitch {
  disabled: boolean
  by: string
  reason: string | null
  at: string
}

/** Why the engine is off, or null when it runs: the environment wins over the hub. */
export type EngineOff = { by: 'env' } | { by: 'hub', switch: StoredSpawnSwitch } | null

export async function readSpawnSwitch(db: Db): Promise<StoredSpawnSwitch | null> {
  const [row] = await db.select().from(spawnEngineSwitch).orderBy(desc(spawnEngineSwitch.changedAt), desc(spawnEngineSwitch.id)).limit(1)
  return row ? { disabled: row.disabled, by: row.changedBy, reason: row.reason, at: row.changedAt.toISOString() } : null
}

/** Whether the engine is off, and by which side. `envDisabled` is SpawnConfig.disabled (or spawnDisabled(env)). */
export async function engineOff(db: Db, envDisabled: boolean): Promise<EngineOff> {
  if (envDisabled) return { by: 'env' }
  const stored = await readSpawnSwitch(db)
  return stored?.disabled ? { by: 'hub', switch: stored } : null
}

/** The line the automates log and the hub shows, naming the side that switched it off. */
export function engineOffNote(off: Exclude<EngineOff, null>): string {
  if (off.by === 'env') return 'the spawn engine is disabled (ATLAS_SPAWN_DISABLED=1): nothing is queued or spawned; unset it to resume'
  const why = off.switch.reason ? ` (${off.switch.reason})` : ''
  return `the spawn engine is switched off from the hub by ${off.switch.by} at ${off.switch.at}${why}: nothing is queued or spawned; a founder switches it back on from the Atlas inbox`
}

/** A founder's turn of the switch, kept with who and why, and audited like the hub's other switches. */
export async function setSpawnSwitch(
  db: Db,
  change: { disabled: boolean, by: string, reason?: string | null },
): Promise<StoredSpawnSwitch> {
  return await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(spawnEngineSwitch)
      .values({ disabled: change.disabled, changedBy: change.by, reason: change.reason ?? null })
      .returning()
    await recordAudit(tx, {
      actor: change.by,
      action: change.disabled ? 'spawn_engine_disabled' : 'spawn_engine_enabled',
      target: 'atlas-spawn',
      details: change.reason ? { reason: change.reason } : {},
    })
    return { disabled: row!.disabled, by: row!.changedBy, reason: row!.reason, at: row!.changedAt.toISOString() }
  })
}
