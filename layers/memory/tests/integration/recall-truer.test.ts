// Recall as a new user types (issue 17): accents or not, the same stem; identifiers and
// proper nouns still matched exactly. Through the note indexer and the vector sync, as in
// production, on both databases.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { eq } from 'drizzle-orm'
import { memEmbeddings, memNotes } from '#db/schema/mem'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { recall } from '../../core/recall/engine'
import { indexNotes } from '../../core/vault/indexer'
import { syncVectors } from '../../core/vectors/sync'
import { offlineEmbedder, OFFLINE_ENV } from '../fixtures/embedders'
import { PROCESS_TEST_TIMEOUT } from '../fixtures/processes'
import { memoryFolders, type MemoryFolders } from '../fixtures/folders'

const NOTES: Record<string, string> = {
  'permanent/politique-mots-de-passe.md': `---
title: Politique des mots de passe
type: concept
tags: [securite, comptes]
---
Chaque compte a un mot de passe unique, rangé dans le coffre de l'équipe.
`,
  'permanent/pare-feu.md': `---
title: Sécurité du réseau
type: concept
tags: [reseau]
---
Le pare-feu ne laisse entrer que le port 443 ; les autres ports restent fermés.
`,
  'permanent/releve-imap.md': `---
title: Relevé de la boîte
type: concept
---
Le collecteur IMAP relève la boîte toutes les cinq minutes.
`,
  'permanent/option-add-dir.md': `---
title: Dossiers en plus pour un agent
type: concept
---
L'option add-dir de la CLI ajoute un dossier au contexte de l'agent.
`,
  'permanent/antivirus.md': `---
title: Analyse des pièces jointes
type: concept
---
Toute pièce jointe passe par l'antivirus ClamAV avant d'être ouverte.
`,
  'permanent/brouillons-acme.md': `---
title: Brouillons pour Acme
type: doctrine
tags: [atlas, "#clients"]
tenant: Acme
agent: backend
---
Les réponses aux clients d'Acme restent des brouillons relus par l'équipe avant envoi.
`,
  'permanent/brouillons-bistrot.md': `---
title: Brouillons du menu
type: concept
client: bistrot
---
Les brouillons du menu du Bistrot sont relus par le chef avant envoi.
`,
  'permanent/files-bloquees.md': `---
title: Files d'attente
type: concept
---
Les tâches bloquées et les données copiées restent dans la file jusqu'à la reprise.
`,
  'permanent/ajouts.md': `---
title: Ajouts au répertoire
type: concept
---
To add a file, put it in the dir of the week, then add it to the list.
`,
}

function writeNotes(vaultDir: string, notes: Record<string, string>): void {
  for (const [path, text] of Object.entries(notes)) {
    const absolute = join(vaultDir, ...path.split('/'))
    mkdirSync(dirname(absolute), { recursive: true })
    writeFileSync(absolute, text)
  }
}

describeOnBothDatabases('recall that matches as people type', (database) => {
  let folders: MemoryFolders
  beforeAll(async () => {
    const { db } = database()
    folders = memoryFolders()
    writeNotes(folders.vaultDir, NOTES)
    await indexNotes({ db, vaultDir: folders.vaultDir })
    await syncVectors({ db, embedder: offlineEmbedder(db), reflexDir: folders.reflexDir })
  })
  afterAll(() => folders.remove())

  const lexical = async (query: string) => {
    const { db } = database()
    return (await recall({ db, embedder: offlineEmbedder(db) }, { query, mode: 'lex', k: 10, readOnly: true })).hits.map(hit => hit.sourceId)
  }

  it('"sécurité" finds the note tagged securite, and "securite" the note titled "Sécurité"', async () => {
    expect(await lexical('sécurité')).toEqual(expect.arrayContaining(['permanent/politique-mots-de-passe.md', 'permanent/pare-feu.md']))
    expect(await lexical('securite')).toEqual(expect.arrayContaining(['permanent/politique-mots-de-passe.md', 'permanent/pare-feu.md']))
    expect((await lexical('SÉCURITÉ'))[0]).toBe('permanent/pare-feu.md')
  })

  it('another inflection of a word finds its note exactly, accents or not (npm run recall; issue 37)', async () => {
    // Unaccented before the stemmer, "bloquées" was 'bloque' and "bloqué" 'bloqu', "données"
    // 'donne' and "donnée" 'don': the note was missed, or found as a typo only.
    for (const query of ['bloquer une tâche', 'tache bloquee', 'copier des données', 'copier les donnees']) {
      const result = await runTs('scripts/recall.ts', [query, '--mode', 'lex', '--json'], { env: { DATABASE_URL: database().url, ...OFFLINE_ENV } })
      expect(result.code, result.output).toBe(0)
      const response = JSON.parse(result.output.trim().split('\n').pop()!) as { expansions: unknown[], lowConfidence: boolean, hits: Array<{ sourceId: string, lowConfidence: boolean, scores: { fuzzy: boolean, lexicalWords: { matched: number, total: number } } }> }
      expect(response.hits[0], query).toMatchObject({ sourceId: 'permanent/files-bloquees.md', lowConfidence: false, scores: { fuzzy: false } })
      // Every word of the query matched exactly.
      expect(response.hits[0]!.scores.lexicalWords.matched, query).toBe(response.hits[0]!.scores.lexicalWords.total)
      expect(response.expansions, query).toEqual([])
    }
  }, PROCESS_TEST_TIMEOUT)

  it('"IMAP" and add-dir still match exactly: the identifier is a phrase, not its loose parts', async () => {
    expect(await lexical('IMAP')).toEqual(['permanent/releve-imap.md'])
    expect(await lexical('add-dir')).toEqual(['permanent/option-add-dir.md'])
    // Its parts alone, far apart, find the other note: only the phrase is exact.
    expect(await lexical('add dir')).toContain('permanent/ajouts.md')
    const { db } = database()
    const hybrid = await recall({ db, embedder: offlineEmbedder(db) }, { query: 'add-dir', k: 3, readOnly: true })
    expect(hybrid.hits[0]).toMatchObject({ sourceId: 'permanent/option-add-dir.md', scores: { lexicalRank: 1 } })
  })
})

describeOnBothDatabases('the front matter respected', (database) => {
  let folders: MemoryFolders
  beforeAll(async () => {
    const { db } = database()
    folders = memoryFolders()
    writeNotes(folders.vaultDir, NOTES)
    await indexNotes({ db, vaultDir: folders.vaultDir })
    await syncVectors({ db, embedder: offlineEmbedder(db), reflexDir: folders.reflexDir })
  })
  afterAll(() => folders.remove())

  const ids = async (request: Parameters<typeof recall>[1]) => {
    const { db } = database()
    return (await recall({ db, embedder: offlineEmbedder(db) }, { k: 10, readOnly: true, ...request })).hits.map(hit => hit.sourceId)
  }

  it('type, tags, tenant and agent reach mem_notes and the chunk', async () => {
    const { db } = database()
    const [note] = await db.select().from(memNotes).where(eq(memNotes.path, 'permanent/brouillons-acme.md'))
    expect(note).toMatchObject({ type: 'doctrine', tags: ['atlas', 'clients'], tenant: 'acme', agent: 'backend' })
    const [other] = await db.select().from(memNotes).where(eq(memNotes.path, 'permanent/brouillons-bistrot.md'))
    expect(other).toMatchObject({ type: 'concept', tenant: 'bistrot', agent: null })
    const [chunk] = await db.select().from(memEmbeddings).where(eq(memEmbeddings.sourceId, 'permanent/brouillons-acme.md'))
    expect(chunk).toMatchObject({ sourceType: 'note', tenant: 'acme', agent: 'backend', metadata: { type: 'doctrine', scope: 'doctrine', tags: ['atlas', 'clients'] } })
  })

  it('a note with type: doctrine is recalled with the doctrine scope, in every mode', async () => {
    for (const mode of ['hybrid', 'sem', 'lex'] as const) {
      expect(await ids({ query: 'brouillons relus avant envoi', mode, scope: 'doctrine' }), mode).toEqual(['permanent/brouillons-acme.md'])
      expect(await ids({ query: 'brouillons relus avant envoi', mode, scope: 'doctrines,procedure' }), mode).toEqual(['permanent/brouillons-acme.md'])
      expect(await ids({ query: 'brouillons relus avant envoi', mode, scope: 'procedure' }), mode).toEqual([])
    }
    expect(await ids({ query: 'brouillons relus avant envoi', mode: 'lex', scope: 'note' })).toEqual(expect.arrayContaining(['permanent/brouillons-acme.md', 'permanent/brouillons-bistrot.md']))
  })

  it('the tenant filter keeps a tenant\'s notes and the shared ones, never another tenant\'s; the agent filter its own', async () => {
    const query = { query: 'brouillons relus avant envoi', mode: 'lex' as const }
    const acme = await ids({ ...query, tenant: 'ACME' })
    expect(acme).toContain('permanent/brouillons-acme.md')
    expect(acme).not.toContain('permanent/brouillons-bistrot.md')
    const bistrot = await ids({ ...query, tenant: 'bistrot' })
    expect(bistrot).toContain('permanent/brouillons-bistrot.md')
    expect(bistrot).not.toContain('permanent/brouillons-acme.md')
    const shared = await ids({ query: 'pare-feu', mode: 'lex', tenant: 'acme' })
    expect(shared).toEqual(['permanent/pare-feu.md'])
    expect(await ids({ ...query, agent: 'backend' })).toEqual(['permanent/brouillons-acme.md'])
  })
})

describeOnBothDatabases('recall with typos, and when the vault has nothing to say', (database) => {
  let folders: MemoryFolders
  beforeAll(async () => {
    const { db } = database()
    folders = memoryFolders()
    writeNotes(folders.vaultDir, NOTES)
    await indexNotes({ db, vaultDir: folders.vaultDir })
    await syncVectors({ db, embedder: offlineEmbedder(db), reflexDir: folders.reflexDir })
  })
  afterAll(() => folders.remove())

  it('a word with two wrong letters still finds its note, expanded to the stems the vault holds', async () => {
    const { db } = database()
    for (const [typo, note, stem] of [['colecteru', 'permanent/releve-imap.md', 'collecteur'], ['antivirsu', 'permanent/antivirus.md', 'antivirus']] as const) {
      for (const mode of ['lex', 'hybrid'] as const) {
        const response = await recall({ db, embedder: offlineEmbedder(db) }, { query: typo, mode, k: 5, readOnly: true })
        expect(response.expansions, `${typo} ${mode}`).toEqual([{ word: typo, stems: expect.arrayContaining([stem]) }])
        expect(response.hits.map(hit => hit.sourceId), `${typo} ${mode}`).toContain(note)
        expect(response.hits.find(hit => hit.sourceId === note)!.scores).toMatchObject({ fuzzy: true })
      }
    }
  })

  it('never drowns an exact match: fuzzy hits rank after every exact one; known words are not expanded', async () => {
    const { db } = database()
    const response = await recall({ db, embedder: offlineEmbedder(db) }, { query: 'pare-feu colecteru', mode: 'lex', k: 10, readOnly: true })
    expect(response.hits[0]).toMatchObject({ sourceId: 'permanent/pare-feu.md', scores: { fuzzy: false } })
    expect(response.hits.map(hit => hit.sourceId)).toContain('permanent/releve-imap.md')
    const firstFuzzy = response.hits.findIndex(hit => hit.scores.fuzzy)
    expect(response.hits.slice(firstFuzzy).every(hit => hit.scores.fuzzy)).toBe(true)
    expect((await recall({ db, embedder: offlineEmbedder(db) }, { query: 'collecteur IMAP', mode: 'lex', readOnly: true })).expansions).toEqual([])
  })

  it('a question the vault cannot answer is flagged low confidence, and empty when briefings drop what is below the floor', async () => {
    const { db } = database()
    const question = 'Quelle est la recette de la tarte aux pommes ?'
    const flagged = await recall({ db, embedder: offlineEmbedder(db) }, { query: question, k: 5, readOnly: true })
    expect(flagged.lowConfidence).toBe(true)
    expect(flagged.hits.length).toBeGreaterThan(0)
    expect(flagged.hits.every(hit => hit.lowConfidence)).toBe(true)
    const dropped = await recall({ db, embedder: offlineEmbedder(db) }, { query: question, k: 5, readOnly: true, belowFloor: 'drop' })
    expect(dropped).toMatchObject({ lowConfidence: true, hits: [], floor: { belowFloor: 'drop', dropped: expect.any(Number) } })
    expect(dropped.floor.dropped).toBeGreaterThanOrEqual(flagged.hits.length)
    // The response says why (issue 37), and the CLI prints it.
    expect(flagged.lowConfidenceReason).toMatch(/^no result holds 2 of the query's words exactly .* nor reaches cosine 0\.4$/)
    expect(dropped.lowConfidenceReason).toMatch(/: \d+ result\(s\) below the floor dropped$/)
    const cli = await runTs('scripts/recall.ts', [question, '--drop-below-floor'], { env: { DATABASE_URL: database().url, ...OFFLINE_ENV } })
    expect(cli.code, cli.output).toBe(0)
    expect(cli.output).toContain(`Nothing relevant: ${dropped.lowConfidenceReason}.`)
    // A question it can answer keeps its hits above the floor, dropped or not.
    const answered = await recall({ db, embedder: offlineEmbedder(db) }, { query: 'antivirus avant d\'ouvrir une pièce jointe', k: 5, readOnly: true, belowFloor: 'drop' })
    expect(answered.lowConfidence).toBe(false)
    expect(answered.hits[0]).toMatchObject({ sourceId: 'permanent/antivirus.md', lowConfidence: false })
  }, PROCESS_TEST_TIMEOUT)
})
