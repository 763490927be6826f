// Every write control of the hub (a button, a form's submit, a switch, an editable field) carries
// `data-write` naming the route it calls and is guarded by `useCan()` of that route on its own tag:
// shown (v-if) or enabled (:disabled="!can(…)") only for a role the route's entry in
// shared/access.ts lets through, so a page and its route cannot disagree. A static read of the .vue files; tests/e2e/viewer-pages.test.ts
// walks the
// pages as a viewer and finds none of these controls enabled.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ACCESS } from '#shared/access'

const ROOT = resolve(import.meta.dirname, '../..')
const SKIP = new Set(['node_modules', '.nuxt', '.output', '.git', '.data', 'tests'])

function vueFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return []
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return vueFiles(path)
    return name.endsWith('.vue') ? [path] : []
  })
}

/** The opening tags of a template: from `<Name` to the first `>` outside a quoted attribute value. */
function openingTags(source: string): Array<{ tag: string, line: number }> {
  const template = source.slice(source.indexOf('<template'))
  const offset = source.length - template.length
  const tags: Array<{ tag: string, line: number }> = []
  for (const match of template.matchAll(/<[A-Za-z]/g)) {
    let quote: string | null = null
    let end = match.index + 1
    for (; end < template.length; end++) {
      const char = template[end]!
      if (quote) {
        if (char === quote) quote = null
      }
      else if (char === '"' || char === '\'') {
        quote = char
      }
      else if (char === '>') {
        break
      }
    }
    tags.push({ tag: template.slice(match.index, end + 1), line: source.slice(0, offset + match.index).split('\n').length })
  }
  return tags
}

/** The tag with its quoted values blanked, so an attribute name is never read inside a value. */
const names = (tag: string) => tag.replace(/"[^"]*"|'[^']*'/g, '""')
const attribute = (tag: string, name: string) => new RegExp(`\\s${name.replace(/[:-]/g, m => `\\${m}`)}="([^"]*)"`).exec(tag)?.[1]
const WRITE = /\s:?data-write(?=[\s/>=])/

/** The arguments of the `can(…)` calls in a condition (`negated`: only the ones under a `!`). */
function canArguments(condition: string, negated: boolean): string[] {
  const found: string[] = []
  for (const match of condition.matchAll(/(!?)(?<![\w.$])can\(/g)) {
    if ((match[1] === '!') !== negated) continue
    let depth = 1
    let end = match.index + match[0].length
    for (; end < condition.length && depth > 0; end++) {
      if (condition[end] === '(') depth++
      else if (condition[end] === ')') depth--
    }
    found.push(condition.slice(match.index + match[0].length, end - 1))
  }
  return found
}

/** The route a control says it calls: `data-write="POST /api/x"` as the literal `'POST /api/x'`, `:data-write="expr"` as `expr`. */
function declaredRoute(tag: string): string | undefined {
  const bound = attribute(tag, ':data-write')
  if (bound !== undefined) return bound
  const literal = attribute(tag, 'data-write')
  return literal === undefined ? undefined : `'${literal}'`
}

/**
 * Why a write control is not guarded, or null when it is: its own tag shows it (v-if) or enables it (:disabled) by `can(…)` of the route
 * its `data-write` names.
 */
export function unguarded(tag: string): string | null {
  const route = declaredRoute(tag)
  if (!route || route === '\'\'') return 'data-write names no route'
  const shown = [attribute(tag, 'v-if'), attribute(tag, 'v-else-if'), attribute(tag, 'v-show')].flatMap(c => (c === undefined ? [] : canArguments(c, false)))
  const enabled = canArguments(attribute(tag, ':disabled') ?? '', true)
  if (shown.length + enabled.length === 0) return 'no v-if="can(…)" nor :disabled="!can(…)" on the tag'
  if (![...shown, ...enabled].includes(route)) return `data-write names ${route}, the guard asks can(${[...shown, ...enabled].join(', ')})`
  return null
}

/** The write controls of one file that are not guarded, as `file:line reason`. */
export function unguardedControls(file: string, source: string): string[] {
  const found = openingTags(source).filter(({ tag }) => WRITE.test(names(tag)))
  const problems = found.flatMap(({ tag, line }) => {
    const why = unguarded(tag)
    return why ? [`${file}:${line} ${why}`] : []
  })
  if (found.length > 0 && !/\buseCan\(\)/.test(source)) problems.push(`${file}: data-write controls without useCan()`)
  return problems
}

const files = [...vueFiles(join(ROOT, 'pages')), ...vueFiles(join(ROOT, 'components')), ...vueFiles(join(ROOT, 'layouts')), ...vueFiles(join(ROOT, 'layers'))]
const sources = files.map(file => ({ file: relative(ROOT, file), text: readFileSync(file, 'utf8') }))

describe('write controls', () => {
  it('reads every page and component', () => {
    expect(sources.length).toBeGreaterThan(100)
    expect(sources.map(s => s.file)).toContain('layers/skills/pages/hub/skills/index.vue')
  })

  it('guards every data-write control by useCan() on its own tag', () => {
    const controls = sources.reduce((n, { text }) => n + openingTags(text).filter(({ tag }) => WRITE.test(names(tag))).length, 0)
    expect(controls).toBeGreaterThan(80)
    expect(sources.flatMap(({ file, text }) => unguardedControls(file, text))).toEqual([])
  })

  it('marks the controls a viewer used to see (issue 36): New skill, Import SKILL.md, New agent, Re-classify, Save on reflex memory', () => {
    const tagOf = (file: string, testid: string) => openingTags(sources.find(s => s.file === file)!.text).find(({ tag }) => tag.includes(`data-testid="${testid}"`))?.tag ?? ''
    for (const [file, testid] of [
      ['layers/skills/pages/hub/skills/index.vue', 'skills-new'],
      ['layers/skills/pages/hub/skills/index.vue', 'skills-import'],
      ['layers/agents/pages/hub/agents/custom/index.vue', 'custom-new'],
      ['layers/atlas/pages/hub/atlas/[id].vue', 'atlas-reclassify'],
      ['layers/memory/pages/hub/memory/reflex.vue', 'reflex-save'],
      ['layers/agents/pages/hub/agents/custom/[codename].vue', 'custom-kill'],
    ] as const) {
      const tag = tagOf(file, testid)
      expect(tag, `${file} ${testid}`).toMatch(/\sdata-write="[A-Z]+ \/api\//)
      expect(unguarded(tag), `${file} ${testid}`).toBeNull()
    }
  })

  it('names only routes of the table in can(…) and data-write', () => {
    const named = sources.flatMap(({ file, text }) => [...text.matchAll(/\bcan\('([^']+)'\)/g)].map(m => ({ file, route: m[1]! })))
    expect(named.length).toBeGreaterThan(50)
    expect(named.filter(({ route }) => !(route in ACCESS))).toEqual([])
    const declared = sources.flatMap(({ file, text }) => [...text.matchAll(/\sdata-write="([^"]+)"/g)].map(m => ({ file, route: m[1]! })))
    expect(declared.length).toBeGreaterThan(50)
    expect(declared.filter(({ route }) => !(route in ACCESS))).toEqual([])
  })

  it('keeps no second role check: useCanOperate is gone, roles are compared in shared/access.ts only', () => {
    const offenders = sources.filter(({ text }) => /useCanOperate|role === '(operator|founder)'|role !== 'viewer'/.test(text)).map(s => s.file)
    // The API page colours each operation's role badge: a display, not a permission.
    expect(offenders.filter(file => file !== 'components/ApiOperation.vue' && file !== 'components/AccountTokens.vue')).toEqual([])
  })

  it('refuses a planted unguarded control, a negated v-if, a guard by another name or route, and a data-write file without useCan()', () => {
    const page = (control: string, setup = 'const can = useCan()') => `<script setup lang="ts">\n${setup}\n</script>\n\n<template>\n  <div>\n    ${control}\n  </div>\n</template>\n`
    expect(unguardedControls('a.vue', page('<UButton data-write="POST /api/skills" label="New" @click="go" />'))).toEqual(['a.vue:7 no v-if="can(…)" nor :disabled="!can(…)" on the tag'])
    expect(unguardedControls('b.vue', page('<UButton v-if="!can(\'POST /api/skills\')" data-write="POST /api/skills" label="New" />'))).toHaveLength(1)
    expect(unguardedControls('c.vue', page('<UButton v-if="canOperate" data-write="POST /api/skills" label="New" />'))).toHaveLength(1)
    expect(unguardedControls('d.vue', page('<UButton :disabled="can(\'POST /api/skills\')" data-write="POST /api/skills" label="New" />'))).toHaveLength(1)
    expect(unguardedControls('e.vue', page('<UButton v-if="can(\'POST /api/skills\')" data-write="POST /api/skills" label="New" />', 'const x = 1'))).toEqual(['e.vue: data-write controls without useCan()'])
    // The guard asks for another route than the one the control says it calls, or the control names none.
    expect(unguardedControls('i.vue', page('<UButton v-if="can(\'PUT /api/skills/:id/enablement\')" data-write="POST /api/skills/import" label="Import" />'))).toHaveLength(1)
    expect(unguardedControls('j.vue', page('<UButton v-if="can(\'POST /api/skills\')" data-write label="New" />'))).toEqual(['j.vue:7 data-write names no route'])
    // A `>` inside an attribute value does not end the tag; a guard after it still counts.
    expect(unguardedControls('f.vue', page('<UButton :label="a > b ? \'x\' : \'y\'" data-write="POST /api/skills" :disabled="busy || !can(\'POST /api/skills\')" />'))).toEqual([])
    expect(unguardedControls('g.vue', page('<UButton v-if="ready && can(ROUTES[entity])"\n      :data-write="ROUTES[entity]"\n      label="New" />'))).toEqual([])
    // `data-write` inside another attribute's value is not a control.
    expect(unguardedControls('h.vue', page('<p title="data-write">x</p>'))).toEqual([])
  })
})
