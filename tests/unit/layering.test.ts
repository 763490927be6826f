// The architecture as a test: the database at the bottom, then base (what every layer may
// use), the AI facade, memory, the domains built on memory, skills, and Atlas on top. A
// layer's code (tests aside) uses only its own layer, base or a lower rank — by import and by
// Nuxt's auto-imports alike (components, composables, server utilities), the root app's
// counting as the top — and the database imports no layer; an import that leaves its own
// area (or climbs three folders or more) goes through a subpath (#db/*, #layers/*, …), never
// a `../../..` climb.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { registryFrom, upwardAutoImports, upwardImports } from '#tests/helpers/layering'

const ROOT = resolve(import.meta.dirname, '../..')
/**
 * db ← base ← ai ← memory ← (agents, worksites, health) ← (skills, spawn) ← atlas ← learning (it
 * reads what every layer leaves) ← hub (the wiring: ports implemented across the layers below)
 */
const RANK: Record<string, number> = {
  base: 0,
  ai: 1,
  clients: 2,
  memory: 2,
  agents: 3,
  worksites: 3,
  health: 3,
  skills: 4,
  spawn: 4,
  atlas: 5,
  learning: 6,
  settings: 6,
  hub: 7,
}
const SKIP = new Set(['node_modules', '.nuxt', '.output', '.git', '.tmp', '.data', 'migrations'])
const IMPORT = /(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return []
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return /\.(ts|vue|mts)$/.test(name) ? [path] : []
  })
}

/** A file's area: `layers/<name>` for a layer, else its top-level folder. */
function area(path: string): string {
  const parts = relative(ROOT, path).split('/')
  return parts[0] === 'layers' ? `layers/${parts[1]}` : parts[0]!
}

const files = ['db', 'layers', 'server', 'shared', 'automates', 'scripts', 'bench', 'tests'].flatMap(dir => sources(join(ROOT, dir)))
const texts = files.map(file => ({ file: relative(ROOT, file), text: readFileSync(file, 'utf8') }))
const imports = texts.flatMap(({ file, text }) => [...text.matchAll(IMPORT)].map(m => ({ file, spec: m[1]! })))
/** The auto-import names as `nuxt prepare` (run by npm install) declares them. */
const registry = registryFrom({
  components: readFileSync(join(ROOT, '.nuxt/components.d.ts'), 'utf8'),
  imports: readFileSync(join(ROOT, '.nuxt/imports.d.ts'), 'utf8'),
  nitroImports: readFileSync(join(ROOT, '.nuxt/types/nitro-imports.d.ts'), 'utf8'),
})

describe('layering', () => {
  it('reads the whole tree', () => {
    expect(files.length).toBeGreaterThan(300)
  })

  it('keeps every layer free of imports from higher layers (tests aside)', () => {
    expect(upwardImports(texts, RANK)).toEqual([])
  })

  it('reads every auto-import name Nuxt declares', () => {
    expect(registry.components.get('HubTable')).toBe('layers/base/components/HubTable.vue')
    expect(registry.composables.get('relativeTime')).toBe('layers/base/composables/relative-time.ts')
    expect(registry.serverUtils.get('useDb')).toBe('layers/base/server/utils/database.ts')
  })

  it('keeps every layer free of components, composables and server utilities of higher layers or the root app', () => {
    expect(upwardAutoImports(texts, registry, RANK)).toEqual([])
  })

  it('leaves its own area, or climbs three folders or more, through a subpath import', () => {
    const climbs = imports.filter(({ file, spec }) => {
      if (!spec.startsWith('../')) return false
      const target = resolve(ROOT, file, '..', spec)
      if (relative(ROOT, target).startsWith('..')) return false
      return area(join(ROOT, file)) !== area(target) || spec.split('../').length > 3
    })
    expect(climbs).toEqual([])
  })
})
