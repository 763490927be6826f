// The first-run checklist in the reader's language: beside each English label and detail the
// builder words itself, a catalog key (settings.checklist.…) whose English is that text.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createProviderRegistry } from '#layers/ai/core/providers'
import { buildChecklist, type ChecklistCounts } from '../../core/checklist'
import { Checklist } from '../../core/schemas'
import { catalog, expectSaid } from '#tests/helpers/catalogs'

const NONE: ChecklistCounts = { founders: 0, clients: 0, polled: 0, reached: 0, messages: 0 }
const ONE: ChecklistCounts = { founders: 1, clients: 1, polled: 0, reached: 0, messages: 1 }
const MANY: ChecklistCounts = { founders: 2, clients: 3, polled: 0, reached: 1, messages: 4 }
const IMAP = { ATLAS_IMAP_HOST: 'imap.studio.example', ATLAS_IMAP_USER: 'atlas@studio.example', ATLAS_IMAP_PASSWORD: 'imap-Secret-1' }

function checklistFor(counts: ChecklistCounts, env: Record<string, string>) {
  return buildChecklist(counts, env, createProviderRegistry({ env }).status())
}

const EN = catalog('en')
const FR = catalog('fr')

/** Counts and environments that, between them, reach every branch the builder words. */
function everyCase(): Checklist[] {
  const bin = mkdtempSync(join(tmpdir(), 'settings-checklist-'))
  writeFileSync(join(bin, 'claude'), '#!/bin/sh\n')
  chmodSync(join(bin, 'claude'), 0o755)
  return [
    checklistFor(NONE, { PATH: '/nonexistent' }),
    checklistFor(ONE, { ...IMAP, PATH: '/nonexistent', SPAWN_AGENT_BIN: 'agent-cli', MISTRAL_API_KEY: 'mistral-key' }),
    checklistFor(MANY, { ...IMAP, PATH: bin, ANTHROPIC_API_KEY: 'anthropic-key', OPENAI_COMPAT_BASE_URL: 'http://127.0.0.1:8000/v1' }),
    checklistFor({ ...ONE, polled: 1 }, { ...IMAP, ATLAS_IMAP_PORT: 'many', PATH: bin, SPAWN_SANDBOX: 'nowhere' }),
  ]
}

describe('the first-run checklist in the reader\'s language', () => {
  const lists = everyCase()
  const items = lists.flatMap(list => list.items)
  const said = items.flatMap(item => [
    { key: item.labelKey, english: item.label },
    ...(item.detailKey ? [{ key: item.detailKey, values: item.detailValues, english: item.detail }] : []),
  ])

  it('answers in the shape the schema says', () => {
    for (const list of lists) expect(Checklist.strict().parse(list)).toEqual(list)
  })

  it('gives, beside each English text it words itself, a key both catalogs hold whose English is that text', () => {
    expectSaid(said)
  })

  it('words the counts as before, one and many', () => {
    const details = (list: Checklist) => list.items.map(item => item.detail)
    expect(details(lists[1]!)).toEqual(expect.arrayContaining(['1 founder', '1 active client', '1 message received']))
    expect(details(lists[2]!)).toEqual(expect.arrayContaining(['2 founders', '3 active clients', '4 messages received']))
    expect(details(lists[0]!)).toEqual(expect.arrayContaining([
      'No active founder: create one with npm run user:create -- --email you@studio.example --role founder',
      'No provider key: every answer comes from the offline rules',
      '"claude" not found: set SPAWN_AGENT_BIN',
    ]))
  })

  it('gives each plural message as many forms in French as in English', () => {
    for (const key of [...EN.keys()].filter(name => name.startsWith('settings.checklist.'))) {
      expect(FR.get(key)!.split(' | ').length, key).toBe(EN.get(key)!.split(' | ').length)
    }
  })

  it('emits every checklist message of the catalog in some case (the cases reach every branch)', () => {
    const emitted = new Set(said.map(({ key }) => key))
    const worded = [...EN.keys()].filter(key => /^settings\.checklist\.(items|details)\./.test(key))
    expect(worded.length).toBeGreaterThan(0)
    expect(worded.filter(key => !emitted.has(key))).toEqual([])
  })

  it('leaves a path and the providers\' names without a key: they are shown as written', () => {
    const agent = lists[2]!.items.find(item => item.id === 'agent-cli')!
    expect(agent).toMatchObject({ done: true, detail: expect.stringMatching(/claude$/) })
    expect(agent.detailKey).toBeUndefined()
    const model = lists[2]!.items.find(item => item.id === 'model')!
    expect(model.detail).toContain('Anthropic')
    expect(model.detailKey).toBeUndefined()
  })
})
