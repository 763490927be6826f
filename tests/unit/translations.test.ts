// French and English through @nuxtjs/i18n: no word a person reads is written in a `.vue` file
// outside the translation files, both languages hold the same keys, every message compiles, and
// every key a page asks for exists. Each layer keeps its words in `i18n/locales/{en,fr}.json`
// under its own name (`worksites.…`); the root app's are under `app.…`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { baseCompile } from '@intlify/message-compiler'
import { describe, expect, it } from 'vitest'
import { untranslatedIn } from '#tests/helpers/untranslated'

const ROOT = resolve(import.meta.dirname, '../..')
const SKIP = new Set(['node_modules', '.nuxt', '.output', '.git', '.data', 'tests'])

function filesUnder(dir: string, pattern: RegExp): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return []
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return filesUnder(path, pattern)
    return pattern.test(name) ? [path] : []
  })
}

const APP_DIRS = ['app.vue', 'error.vue', 'components', 'pages', 'layouts', 'composables', 'layers']
const vueFiles = APP_DIRS.flatMap(dir => statSync(join(ROOT, dir), { throwIfNoEntry: false })?.isFile() ? [join(ROOT, dir)] : filesUnder(join(ROOT, dir), /\.vue$/))
const codeFiles = APP_DIRS.flatMap(dir => statSync(join(ROOT, dir), { throwIfNoEntry: false })?.isFile() ? [join(ROOT, dir)] : filesUnder(join(ROOT, dir), /\.(vue|ts)$/))

type Messages = { [key: string]: string | Messages }

function flatten(messages: Messages, prefix = ''): Map<string, string> {
  const flat = new Map<string, string>()
  for (const [key, value] of Object.entries(messages)) {
    const path = prefix ? `${prefix}.${key}` : key
    if (typeof value === 'string') flat.set(path, value)
    else for (const [inner, text] of flatten(value, path)) flat.set(inner, text)
  }
  return flat
}

/** Every locale folder: the root app's and each layer's, with the namespace its keys live under. */
const localeDirs = [{ dir: join(ROOT, 'i18n/locales'), namespace: 'app' }, ...readdirSync(join(ROOT, 'layers')).map(name => ({ dir: join(ROOT, 'layers', name, 'i18n/locales'), namespace: name }))]
  .filter(({ dir }) => existsSync(dir))
const catalogs = localeDirs.map(({ dir, namespace }) => ({
  dir: relative(ROOT, dir),
  namespace,
  en: flatten(JSON.parse(readFileSync(join(dir, 'en.json'), 'utf8')) as Messages),
  fr: flatten(JSON.parse(readFileSync(join(dir, 'fr.json'), 'utf8')) as Messages),
}))
const english = new Map(catalogs.flatMap(({ en }) => [...en]))

describe('translations', () => {
  it('reads the whole app and every catalog', () => {
    expect(vueFiles.length).toBeGreaterThan(100)
    expect(catalogs.map(({ namespace }) => namespace)).toContain('app')
  })

  it('finds no word a person reads outside the translation files', () => {
    const found = vueFiles.flatMap(file => untranslatedIn(readFileSync(file, 'utf8'))
      .map(({ line, text }) => `${relative(ROOT, file)}:${line} ${text.replace(/\s+/g, ' ').slice(0, 80)}`))
    expect(found).toEqual([])
  })

  it('catches a planted label, text and toast, and leaves keys and code alone', () => {
    const planted = `<script setup lang="ts">
const toast = useToast()
toast.add({ title: 'Saved the note' })
toast.add({ title: t('app.saved') })
</script>
<template>
  <div>
    <UButton label="Save" icon="i-lucide-save" color="primary" />
    <p>Nothing here yet</p>
    <p>{{ $t('app.empty') }} <code>npm start</code></p>
    <UBadge :label="done ? 'Done' : t('app.pending')" :color="done ? 'success' : 'neutral'" />
  </div>
</template>`
    expect(untranslatedIn(planted).map(({ text }) => text)).toEqual(['label="Save"', 'Nothing here yet', ':label Done', 'title: Saved the note'])
  })

  it('holds the same keys in French and English, under the layer\'s own name', () => {
    for (const { dir, namespace, en, fr } of catalogs) {
      expect([...fr.keys()].filter(key => !en.has(key)), `${dir}: in fr.json only`).toEqual([])
      expect([...en.keys()].filter(key => !fr.has(key)), `${dir}: in en.json only`).toEqual([])
      expect([...en.keys()].filter(key => !key.startsWith(`${namespace}.`)), `${dir}: outside ${namespace}.`).toEqual([])
    }
  })

  it('compiles every message (an unescaped @, { or | fails here, not in the build)', () => {
    const broken: string[] = []
    for (const { dir, en, fr } of catalogs) {
      for (const [lang, messages] of [['en', en], ['fr', fr]] as const) {
        for (const [key, text] of messages) {
          baseCompile(text, { onError: error => broken.push(`${dir}/${lang}.json ${key}: ${error.message}`) })
        }
      }
    }
    expect(broken).toEqual([])
  })

  it('finds every key a page or component asks for', () => {
    const missing = codeFiles.flatMap((file) => {
      const text = readFileSync(file, 'utf8')
      return [...text.matchAll(/(?:^|[^\w$.])\$?t[ec]?\(\s*'([a-z][\w-]*(?:\.[\w-]+)+)'/g)]
        .map(match => match[1]!)
        .filter(key => !english.has(key))
        .map(key => `${relative(ROOT, file)}: ${key}`)
    })
    expect(missing).toEqual([])
  })

  it('asks for keys, never for English text (the home-made systems took English as the key)', () => {
    const texts = codeFiles.flatMap((file) => {
      const text = readFileSync(file, 'utf8')
      return [...text.matchAll(/(?:^|[^\w$.])\$?t\(\s*(['"`])((?:\\.|(?!\1).)*)\1/g)]
        .map(match => match[2]!)
        .filter(key => !/^[a-z][\w-]*(?:\.[\w${}-]+)+$/.test(key))
        .map(key => `${relative(ROOT, file)}: t('${key.slice(0, 60)}')`)
    })
    expect(texts).toEqual([])
  })
})
