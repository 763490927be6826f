// The architecture as a test: the database at the bottom, then the AI facade, memory, the
// domains built on memory, skills, and Atlas on top. A layer's code (tests aside) imports only
// from its own rank or below, and the database imports no layer; an import that leaves its
// own area (or climbs three folders or more) goes through a subpath (#db/*, #layers/*, …),
// never a `../../..` climb.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')
/** db ← ai ← memory ← (agents, worksites, health) ← skills ← atlas ← learning (it reads what every layer leaves) */
const RANK: Record<string, number> = { ai: 1, memory: 2, agents: 3, worksites: 3, health: 3, skills: 4, atlas: 5, learning: 6 }
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
const imports = files.flatMap(file => [...readFileSync(file, 'utf8').matchAll(IMPORT)].map(m => ({ file: relative(ROOT, file), spec: m[1]! })))

describe('layering', () => {
  it('reads the whole tree', () => {
    expect(files.length).toBeGreaterThan(300)
  })

  it('keeps every layer free of imports from higher layers (tests aside)', () => {
    const upward = imports.filter(({ file, spec }) => {
      if (file.includes('/tests/')) return false
      const from = /^layers\/([a-z]+)\//.exec(file)?.[1]
      const to = /^#layers\/([a-z]+)\//.exec(spec)?.[1]
      if (file.startsWith('db/')) return spec.startsWith('#layers/')
      return from !== undefined && to !== undefined && from !== to && RANK[to]! >= RANK[from]!
    })
    expect(upward).toEqual([])
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
