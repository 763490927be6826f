// Link-aware recall (issue 37): a note one wiki link away from a note the question finds is
// recalled with it, in either direction, within the filters of the recall; through the
// recall CLI and the engine, on both databases.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { recall } from '../../core/recall/engine'
import { indexNotes } from '../../core/vault/indexer'
import { syncVectors } from '../../core/vectors/sync'
import { offlineEmbedder, OFFLINE_ENV } from '../fixtures/embedders'
import { memoryFolders, type MemoryFolders } from '../fixtures/folders'
import { PROCESS_TEST_TIMEOUT } from '../fixtures/processes'

const NOTES: Record<string, string> = {
  'permanent/portail-zephyr.md': `---
title: Portail Zephyr
type: concept
---
Le portail Zephyr publie les factures trimestrielles ; quand il refuse une connexion, voir [[jeton-oauth]].
`,
  'permanent/jeton-oauth.md': `---
title: Jeton OAuth
type: reference
---
Le jeton se renouvelle tous les quatre-vingt-dix jours depuis la console du fournisseur.
`,
  'permanent/nb-7.md': `---
title: Archives Nebula
type: concept
---
Les archives Nebula gardent les contrats signés pendant dix ans.
`,
  'permanent/coffre-nebula.md': `---
title: Coffre
type: reference
tenant: globex
---
Le coffre chiffré tient ce que décrit [[nb-7]].
`,
  'permanent/registre.md': `---
title: Registre
type: reference
---
Le registre des signatures complète [[nb-7]].
`,
}

describeOnBothDatabases('recall follows the vault\'s links', (database) => {
  let folders: MemoryFolders
  beforeAll(async () => {
    const { db } = database()
    folders = memoryFolders()
    for (const [path, text] of Object.entries(NOTES)) {
      const absolute = join(folders.vaultDir, ...path.split('/'))
      mkdirSync(dirname(absolute), { recursive: true })
      writeFileSync(absolute, text)
    }
    await indexNotes({ db, vaultDir: folders.vaultDir })
    await syncVectors({ db, embedder: offlineEmbedder(db), reflexDir: folders.reflexDir })
  })
  afterAll(() => folders.remove())

  it('a question about one note brings the note it links to, marked with the link, its score decayed (npm run recall)', async () => {
    const result = await runTs('scripts/recall.ts', ['le portail Zephyr refuse la connexion', '--json'], { env: { DATABASE_URL: database().url, ...OFFLINE_ENV } })
    expect(result.code, result.output).toBe(0)
    const response = JSON.parse(result.output.trim().split('\n').pop()!) as { hits: Array<{ sourceId: string, lowConfidence: boolean, scores: { final: number, linkedFrom?: string } }> }
    const parent = response.hits.find(hit => hit.sourceId === 'permanent/portail-zephyr.md')!
    const linked = response.hits.find(hit => hit.sourceId === 'permanent/jeton-oauth.md')!
    expect(parent.lowConfidence).toBe(false)
    expect(linked).toMatchObject({ lowConfidence: false, scores: { linkedFrom: 'permanent/portail-zephyr.md' } })
    expect(linked.scores.final).toBeCloseTo(parent.scores.final * 0.5, 10)
  }, PROCESS_TEST_TIMEOUT)

  it('follows links back too, within the tenant filter; a single arm and a scope without notes follow nothing', async () => {
    const { db } = database()
    const ask = async (request: Partial<Parameters<typeof recall>[1]>) =>
      (
        await recall(
          { db, embedder: offlineEmbedder(db) },
          { query: 'contrats signés des archives Nebula', k: 5, readOnly: true, ...request },
        )
      ).hits
    const other = await ask({ tenant: 'initech' })
    expect(other[0]!.sourceId).toBe('permanent/nb-7.md')
    // The registre links to the archives: recalled through the link back. The coffre belongs to another tenant: never through a link
    // either.
    expect(other.find(hit => hit.sourceId === 'permanent/registre.md')?.scores.linkedFrom).toBe('permanent/nb-7.md')
    expect(other.map(hit => hit.sourceId)).not.toContain('permanent/coffre-nebula.md')
    const globex = await ask({ tenant: 'globex' })
    expect(globex.find(hit => hit.sourceId === 'permanent/coffre-nebula.md')?.scores.linkedFrom).toBe('permanent/nb-7.md')
    expect((await ask({ mode: 'lex' })).some(hit => hit.scores.linkedFrom)).toBe(false)
    expect((await ask({ scope: 'scars' })).some(hit => hit.scores.linkedFrom)).toBe(false)
  })
})
