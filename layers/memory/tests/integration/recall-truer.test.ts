// Recall as a new user types (issue 17): accents or not, the same stem; identifiers and
// proper nouns still matched exactly. Through the note indexer and the vector sync, as in
// production, on both databases.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '../../../../tests/helpers/databases'
import { recall } from '../../core/recall/engine'
import { indexNotes } from '../../core/vault/indexer'
import { syncVectors } from '../../core/vectors/sync'
import { offlineEmbedder } from '../fixtures/embedders'
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
