// The worksites pages speak French as completely as English: every word a page or component
// asks `t()` for (a literal key), every status label of the vocabulary and every registry's
// name, description and status has its French, and placeholders ({n}, {title}…) survive it.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { WORKSITES_FRENCH } from '../../shared/ui-words'
import { vocabulary } from '../../core/vocabulary'
import { REGISTRIES, registryStatusLabel } from '../../shared/registries-ui'

const LAYER = join(import.meta.dirname, '../..')

function vueFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? vueFiles(path) : name.endsWith('.vue') ? [path] : []
  })
}

/** The literal keys of t('…') calls (a key built from a variable is listed below by hand). */
function askedWords(): Map<string, string> {
  const found = new Map<string, string>()
  for (const file of [...vueFiles(join(LAYER, 'components')), ...vueFiles(join(LAYER, 'pages'))]) {
    const source = readFileSync(file, 'utf8')
    for (const match of source.matchAll(/(?<![\w.])t\('((?:[^'\\]|\\.)*)'/g)) found.set(match[1]!.replace(/\\'/g, '\''), file)
  }
  return found
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map(m => m[1]).sort()

describe('the worksites pages in French', () => {
  it('has the French of every word the pages ask for', () => {
    const asked = askedWords()
    expect(asked.size).toBeGreaterThan(100)
    const missing = [...asked].filter(([word]) => !(word in WORKSITES_FRENCH)).map(([word, file]) => `${word} (${file.slice(LAYER.length + 1)})`)
    expect(missing).toEqual([])
  })

  it('has the French of the vocabulary, the registries and the words built at run time', () => {
    const v = vocabulary()
    const labels = Object.values(v.entities).flatMap(entity => entity.statuses.map(s => s.label))
    const registries = REGISTRIES.flatMap(r => [r.label, r.description, ...r.statuses.map(registryStatusLabel)])
    const built = [
      ...['Project', 'Chantier', 'Job', 'Task'].map(name => `${name} created`),
      ...['chantier', 'job', 'task'].map(entity => `Edit the ${entity}`),
      'Question answered', 'Advice given', 'Negociation won', 'Negociation lost', 'Run closed: done', 'Run closed: cancelled', 'Record cancelled',
      'message', 'spawn', 'qa', 'lesson', 'iteration', 'transition', 'assignment', ...v.iterationOutcomes,
      '{title}: no allowed column to the right. Allowed: {allowed}.', '{title}: no allowed column to the left. Allowed: {allowed}.',
      '{title} is already the first card.', '{title} is already the last card.',
    ]
    expect([...labels, ...registries, ...built].filter(word => !(word in WORKSITES_FRENCH))).toEqual([])
  })

  it('keeps every placeholder in the French', () => {
    const broken = Object.entries(WORKSITES_FRENCH).filter(([en, fr]) => JSON.stringify(placeholders(en)) !== JSON.stringify(placeholders(fr)))
    expect(broken).toEqual([])
  })
})
