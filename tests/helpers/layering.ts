// The layering checks as functions over sources, so that tests/unit/layering.test.ts runs them
// over the whole tree and over planted violations alike. Nuxt's auto-imports (components,
// composables, server utilities) cross the layers without an import line: their names are
// read from what `nuxt prepare` generates (.nuxt/components.d.ts, .nuxt/imports.d.ts,
// .nuxt/types/nitro-imports.d.ts), which maps each name to the file that defines it.

export interface Source { file: string, text: string }
export type UseKind = 'component' | 'composable' | 'server utility'
/** Auto-imported names, each to the file (relative to the root) that defines it. */
export interface Registry { components: Map<string, string>, composables: Map<string, string>, serverUtils: Map<string, string> }

/** The root app (pages/, components/, composables/, server/ …) sits on top of every layer. */
const APP = 'the root app'

/** A file's layer: its name under layers/, `db` for the database, else the root app. */
export function layerOf(file: string): string {
  const layer = /^layers\/([a-z-]+)\//.exec(file)?.[1]
  if (layer) return layer
  return file.startsWith('db/') ? 'db' : APP
}

/** A layer may use its own code, `base`, the database and layers of a lower rank. */
function mayUse(from: string, to: string, rank: Record<string, number>): boolean {
  if (from === to || to === 'base' || to === 'db') return true
  if (to === APP) return false
  return rank[to] !== undefined && rank[from] !== undefined && rank[to]! < rank[from]!
}

/** Layer code only: tests may reach anywhere. */
function isLayerCode(file: string): boolean {
  return file.startsWith('layers/') && !file.includes('/tests/')
}

const IMPORT = /(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g

/** Imports of a higher layer from layer code, and of any layer from db/. */
export function upwardImports(sources: Source[], rank: Record<string, number>): string[] {
  return sources.flatMap(({ file, text }) => [...text.matchAll(IMPORT)].flatMap((m) => {
    const spec = m[1]!
    const to = /^(?:#|~~?\/)layers\/([a-z-]+)\//.exec(spec)?.[1]
    if (file.startsWith('db/') && to !== undefined) return [`${file} imports ${spec}: db/ imports no layer`]
    if (!isLayerCode(file) || to === undefined) return []
    const from = layerOf(file)
    return mayUse(from, to, rank) ? [] : [`${file} imports ${spec}: ${to} is not below ${from}`]
  }))
}

function kebab(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').replace(/([A-Z])([A-Z][a-z])/g, '$1-$2').toLowerCase()
}

function escape(name: string): string {
  return name.replace(/\$/g, '\\$')
}

/** Components a `.vue` file names in its template (PascalCase or kebab-case, Lazy or not). */
function usesComponent(text: string, name: string): boolean {
  const tag = new RegExp(`<(?:Lazy)?${name}[\\s/>]|<(?:lazy-)?${kebab(name)}[\\s/>]|resolveComponent\\(['"]${name}['"]`)
  return tag.test(text)
}

/** A name the file neither declares nor imports itself, used as an identifier. */
function usesName(text: string, name: string): boolean {
  const n = escape(name)
  const declared = `(?:function|const|let|var|class|interface|type)\\s+${n}\\b|import[^;]*\\b${n}\\b[^;]*from`
  // A template's own names: a v-for variable, a slot's props.
  const templateLocal = `v-for="[^"]*\\b${n}\\b[^"]*\\s(?:in|of)\\s|#\\w+="\\{[^"]*\\b${n}\\b`
  if (new RegExp(`${declared}|${templateLocal}`).test(text)) return false
  return new RegExp(`(?<![\\w$.'"\`-])${n}\\b(?!['"\`:])`).test(text)
}

/** Comments name components and functions without using them. */
function withoutComments(text: string): string {
  return text.replace(/<!--[\s\S]*?-->/g, '').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(?<![:'"`])\/\/.*$/gm, '')
}

/** Every auto-imported name a layer file uses, with the file that defines it. */
export function autoImportUses(sources: Source[], registry: Registry): { file: string, kind: UseKind, name: string, owner: string }[] {
  return sources.filter(s => isLayerCode(s.file)).flatMap(({ file, text: raw }) => {
    const text = withoutComments(raw)
    const server = file.includes('/server/')
    const found: { file: string, kind: UseKind, name: string, owner: string }[] = []
    if (file.endsWith('.vue')) {
      for (const [name, owner] of registry.components) if (usesComponent(text, name)) found.push({ file, kind: 'component', name, owner })
    }
    const names = server ? registry.serverUtils : registry.composables
    const kind: UseKind = server ? 'server utility' : 'composable'
    for (const [name, owner] of names) if (owner !== file && usesName(text, name)) found.push({ file, kind, name, owner })
    return found
  })
}

/** Auto-imports that climb: a component, composable or server utility of a higher layer or the root app. */
export function upwardAutoImports(sources: Source[], registry: Registry, rank: Record<string, number>): string[] {
  return autoImportUses(sources, registry).flatMap(({ file, kind, name, owner }) => {
    const from = layerOf(file)
    const to = layerOf(owner)
    return mayUse(from, to, rank) ? [] : [`${file} uses ${kind} ${name} of ${owner}: ${to} is not below ${from}`]
  })
}

/** The generated declarations' paths are relative to their own folder; names are kept root-relative. */
function rootRelative(path: string): string {
  return path.replace(/^(?:\.\.\/)+/, '').replace(/\.(?:vue|ts)$/, '')
}

/** Reads the auto-import names from the declarations `nuxt prepare` writes (node_modules aside). */
export function registryFrom(generated: { components: string, imports: string, nitroImports: string }): Registry {
  const components = new Map<string, string>()
  for (const m of generated.components.matchAll(/^export const (\w+): typeof import\("([^"]+\.vue)"\)/gm)) {
    if (!m[1]!.startsWith('Lazy') && !m[2]!.includes('node_modules')) components.set(m[1]!, `${rootRelative(m[2]!)}.vue`)
  }
  const composables = new Map<string, string>()
  for (const m of generated.imports.matchAll(/^export \{ ([^}]+) \} from '(\.\.\/[^']+)'/gm)) {
    if (m[2]!.includes('node_modules')) continue
    for (const name of m[1]!.split(',').map(n => n.trim())) composables.set(name, `${rootRelative(m[2]!)}.ts`)
  }
  const serverUtils = new Map<string, string>()
  for (const m of generated.nitroImports.matchAll(/^\s*const (\w+): typeof import\('([^']+)'\)/gm)) {
    if (!m[2]!.includes('node_modules') && m[2]!.startsWith('../')) serverUtils.set(m[1]!, `${rootRelative(m[2]!)}.ts`)
  }
  return { components, composables, serverUtils }
}
