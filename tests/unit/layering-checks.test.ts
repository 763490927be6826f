// The layering checks catch each kind of climb: planted in a small tree held in memory, every
// one is reported, and what the layers may use is not.
import { describe, expect, it } from 'vitest'
import { registryFrom, upwardAutoImports, upwardImports } from '#tests/helpers/layering'

const RANK: Record<string, number> = { base: 0, ai: 1, memory: 2, health: 3, atlas: 5 }

/** Spelled apart, so the tree's own import check does not read these declarations as imports. */
const IMPORT = 'import'
/** The declarations `nuxt prepare` would write for this tree (node_modules entries are ignored). */
const registry = registryFrom({
  components: [
    `export const AtlasBadge: typeof ${IMPORT}("../layers/atlas/components/AtlasBadge.vue")['default']`,
    `export const LazyAtlasBadge: LazyComponent<typeof ${IMPORT}("../layers/atlas/components/AtlasBadge.vue")['default']>`,
    `export const HubWhen: typeof ${IMPORT}("../layers/base/components/HubWhen.vue")['default']`,
    `export const UButton: typeof ${IMPORT}("../node_modules/@nuxt/ui/dist/runtime/components/Button.vue")['default']`,
  ].join('\n'),
  imports: [
    `export { useAtlasLive } from '../layers/atlas/composables/useAtlasLive';`,
    `export { relativeTime } from '../layers/base/composables/relative-time';`,
    `export { useCookie } from '#app/composables/cookie';`,
  ].join('\n'),
  nitroImports: [
    `  const useDb: typeof ${IMPORT}('../../layers/base/server/utils/database').useDb`,
    `  const homeOnly: typeof ${IMPORT}('../../server/utils/home').homeOnly`,
    `  const useAgentEngine: typeof ${IMPORT}('../../layers/atlas/server/utils/agent-engine').useAgentEngine`,
  ].join('\n'),
})

describe('layering checks', () => {
  it('reads the names and files Nuxt declares, node_modules and Lazy twins aside', () => {
    expect([...registry.components]).toEqual([['AtlasBadge', 'layers/atlas/components/AtlasBadge.vue'], ['HubWhen', 'layers/base/components/HubWhen.vue']])
    expect(registry.composables.get('relativeTime')).toBe('layers/base/composables/relative-time.ts')
    expect(registry.serverUtils.get('homeOnly')).toBe('server/utils/home.ts')
  })

  it('reports an import of a higher layer, and of any layer from db/', () => {
    const found = upwardImports([
      { file: 'layers/memory/core/recall.ts', text: `import { x } from '#layers/atlas/core/spawn/engine'\nimport { y } from '#layers/ai/core/facade'` },
      { file: 'layers/health/components/HealthX.vue', text: `<script setup lang="ts">\nimport type { Z } from '~~/layers/atlas/core/domain'\n</script>` },
      { file: 'layers/ai/core/facade.ts', text: `import { when } from '#layers/base/core/time'` },
      { file: 'layers/atlas/tests/unit/x.test.ts', text: `import { l } from '#layers/learning/core/lessons'` },
      { file: 'db/schema/x.ts', text: `import { m } from '#layers/memory/core/recall'` },
    ], RANK)
    expect(found).toEqual([
      'layers/memory/core/recall.ts imports #layers/atlas/core/spawn/engine: atlas is not below memory',
      'layers/health/components/HealthX.vue imports ~~/layers/atlas/core/domain: atlas is not below health',
      'db/schema/x.ts imports #layers/memory/core/recall: db/ imports no layer',
    ])
  })

  it('reports a component of a higher layer named in a template, in any of its spellings', () => {
    const found = upwardAutoImports([
      { file: 'layers/health/components/HealthRuns.vue', text: `<template><AtlasBadge :at="x" /><HubWhen :at="y" /></template>` },
      { file: 'layers/health/pages/hub/health/x.vue', text: `<template><lazy-atlas-badge /></template>` },
      { file: 'layers/health/components/HealthNote.vue', text: `<template><!-- once <AtlasBadge/> --><span /></template>` },
    ], registry, RANK)
    expect(found).toEqual([
      'layers/health/components/HealthRuns.vue uses component AtlasBadge of layers/atlas/components/AtlasBadge.vue: atlas is not below health',
      'layers/health/pages/hub/health/x.vue uses component AtlasBadge of layers/atlas/components/AtlasBadge.vue: atlas is not below health',
    ])
  })

  it('reports a composable of a higher layer used by name', () => {
    const found = upwardAutoImports([
      { file: 'layers/memory/components/MemoryLive.vue', text: `<script setup lang="ts">\nconst live = useAtlasLive()\nconst ago = relativeTime(at)\n</script>` },
      { file: 'layers/memory/components/MemoryList.vue', text: `<template><li v-for="useAtlasLive in rows" /></template>` },
    ], registry, RANK)
    expect(found).toEqual([
      'layers/memory/components/MemoryLive.vue uses composable useAtlasLive of layers/atlas/composables/useAtlasLive.ts: atlas is not below memory',
    ])
  })

  it('reports a server utility of a higher layer or of the root app used by name', () => {
    const found = upwardAutoImports([
      { file: 'layers/health/server/api/health/x.get.ts', text: `export default defineEventHandler(async () => homeOnly(await useDb()))` },
      { file: 'layers/ai/server/api/ai/y.post.ts', text: `export default defineEventHandler(async () => (await useAgentEngine()).run())` },
      { file: 'layers/atlas/server/api/atlas/z.get.ts', text: `export default defineEventHandler(async () => (await useAgentEngine()).run())` },
    ], registry, RANK)
    expect(found).toEqual([
      'layers/health/server/api/health/x.get.ts uses server utility homeOnly of server/utils/home.ts: the root app is not below health',
      'layers/ai/server/api/ai/y.post.ts uses server utility useAgentEngine of layers/atlas/server/utils/agent-engine.ts: atlas is not below ai',
    ])
  })
})
