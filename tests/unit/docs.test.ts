// The README stays a README (a newcomer's five minutes), the manual in docs/ stays linked
// together, the variables table of docs/configuration.md stays the list .env.example holds,
// and .env.example holds every variable the code reads.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../..')
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')

const markdownFiles = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs')).filter(name => name.endsWith('.md')).map(name => `docs/${name}`),
  ...readdirSync(join(ROOT, 'layers'), { withFileTypes: true })
    .filter(entry => entry.isDirectory() && existsSync(join(ROOT, 'layers', entry.name, 'README.md')))
    .map(entry => `layers/${entry.name}/README.md`),
]

/** The text a reader sees as prose: fenced blocks and inline code spans removed. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '')
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')
}

/** The relative links of a Markdown file: [text](target), targets with a scheme left out. */
function relativeLinks(text: string): string[] {
  return [...prose(text).matchAll(/\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map(match => match[1]!)
    .filter(target => !/^[a-z][a-z0-9+.-]*:/i.test(target))
}

/** The variable names in the first column of a table's rows (`NAME` or a family `NAME_*`). */
function tableNames(section: string): string[] {
  return section.split('\n').filter(line => line.startsWith('| `'))
    .flatMap(line => [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]*\*?)`/g)].map(match => match[1]!))
}

const covers = (name: string, variable: string) => name.endsWith('*') ? variable.startsWith(name.slice(0, -1)) : name === variable

describe('the README and the docs', () => {
  it('the README is a README: at most 220 lines', () => {
    const lines = read('README.md').split('\n').length
    expect(lines).toBeLessThanOrEqual(220)
  })

  it('finds the docs and the layers\' READMEs', () => {
    expect(markdownFiles.filter(file => file.startsWith('docs/')).length).toBeGreaterThan(5)
    expect(markdownFiles.filter(file => file.startsWith('layers/')).length).toBe(readdirSync(join(ROOT, 'layers')).length)
  })

  it('every relative link in README.md, docs/*.md and layers/*/README.md resolves', () => {
    const broken: string[] = []
    let count = 0
    for (const file of markdownFiles) {
      for (const target of relativeLinks(read(file))) {
        count++
        const [path, anchor] = target.split('#') as [string, string | undefined]
        const resolved = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), decodeURI(path))
        if (!existsSync(resolved)) {
          broken.push(`${file}: ${target} (no ${relative(ROOT, resolved)})`)
          continue
        }
        if (anchor !== undefined && resolved.endsWith('.md')) {
          const headings = [...readFileSync(resolved, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map(match => slug(match[1]!))
          if (!headings.includes(anchor)) broken.push(`${file}: ${target} (no heading #${anchor})`)
        }
      }
    }
    expect(count).toBeGreaterThan(20)
    expect(broken).toEqual([])
  })

  it('the variables table of docs/configuration.md is the list .env.example holds', () => {
    const variables = read('.env.example').match(/^[A-Z][A-Z0-9_]+(?==)/gm) ?? []
    expect(variables.length).toBeGreaterThan(50)
    const configuration = read('docs/configuration.md')
    const start = configuration.indexOf('## Environment variables')
    const end = configuration.indexOf('\n## ', start + 1)
    expect(start).toBeGreaterThanOrEqual(0)
    const listed = tableNames(configuration.slice(start, end === -1 ? undefined : end))
    expect(variables.filter(variable => !listed.some(name => covers(name, variable))), 'in .env.example, not in the table').toEqual([])
    expect(listed.filter(name => !variables.some(variable => covers(name, variable))), 'in the table, not in .env.example').toEqual([])
  })

  it('every variable the code reads is in .env.example', () => {
    // How the code reads its settings: process.env.NAME, process.env['NAME'], env.NAME on an
    // injected environment, and the config readers' (env, 'NAME', …) / { env: 'NAME' }.
    const reads = /process\.env\.([A-Z][A-Z0-9_]+)|process\.env\[['"]([A-Z][A-Z0-9_]+)['"]\]|\benv\.([A-Z][A-Z0-9_]+)|\(env, ['"]([A-Z][A-Z0-9_]+)['"]|\benv: ['"]([A-Z][A-Z0-9_]+)['"]/g
    // The system's own, not the project's settings.
    const system = new Set(['PATH', 'HOME', 'CI', 'NODE_ENV', 'XDG_CACHE_HOME', 'TMPDIR', 'USER', 'LANG', 'SHELL', 'TERM'])
    const sources = (dir: string): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`
      if (entry.isDirectory()) return ['node_modules', 'tests', '.output', '.nuxt'].includes(entry.name) ? [] : sources(path)
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
    })
    const files = ['server', 'db', 'scripts', 'automates', 'shared', ...readdirSync(join(ROOT, 'layers')).map(layer => `layers/${layer}/core`)]
      .filter(dir => existsSync(join(ROOT, dir))).flatMap(sources)
    const read = new Set(files.flatMap(file => [...readFileSync(join(ROOT, file), 'utf8').matchAll(reads)].map(match => match.slice(1).find(Boolean)!)))
    expect(read.size).toBeGreaterThan(50)
    const listed = new Set(readFileSync(join(ROOT, '.env.example'), 'utf8').match(/^[A-Z][A-Z0-9_]+(?==)/gm) ?? [])
    expect([...read].filter(name => !system.has(name) && !listed.has(name)).sort(), 'read by the code, missing from .env.example').toEqual([])
  })
})
