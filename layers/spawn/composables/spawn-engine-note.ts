import type { SpawnEngineStatus } from '../core/queries'

/**
 * Why the spawn engine is off, in the reader's language (the status route's `note` stays
 * English for API readers): the environment's ATLAS_SPAWN_DISABLED=1 wins over a founder's
 * switch in the hub, which names who turned it and why.
 *   const note = useSpawnEngineNote(status)
 */
export function useSpawnEngineNote(status: Ref<SpawnEngineStatus | null | undefined>) {
  const { t } = useI18n()
  return computed(() => {
    const engine = status.value
    if (!engine?.disabled) return undefined
    if (engine.disabledBy === 'hub' && engine.switch) {
      return engine.switch.reason
        ? t('spawn.engineStatus.hubNoteWithReason', { by: engine.switch.by, reason: engine.switch.reason })
        : t('spawn.engineStatus.hubNote', { by: engine.switch.by })
    }
    return t('spawn.engineStatus.envNote')
  })
}
