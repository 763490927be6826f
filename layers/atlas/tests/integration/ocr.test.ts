// OCR enrichment: a screenshot holding known French text is read by tesseract.js, the text
// reaches the model between IMAGE_OCR_TEXT_START / _END after the body — and is found in no
// table, no log line, no leftover file.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { BODY_LABEL, OCR_LABEL } from '../../core/classify/prompt'
import { writeEicarDatabase } from '../fakes/clamav'
import { json, startScriptedModel, type ScriptedModel } from '../fakes/model'
import { auditOf, deliver, inboxOf, testConfig } from '../fakes/pipeline'
import { compose, renderTextPng } from '../fixtures/mail'

const SCREENSHOT_TEXT = 'Erreur fatale : la facture numéro 8812 reste bloquée'
// Searched in every row as text: no word a hash or a random id could hold by chance (a bare
// '8812' was found once in another test's hex digest).
const WORDS = ['fatale', 'numéro 8812', 'bloquée']

describeOnBothDatabases('Atlas OCR of screenshots', (database) => {
  let model: ScriptedModel
  let clamdb: { dir: string, remove: () => void }

  beforeAll(async () => {
    model = await startScriptedModel()
    clamdb = writeEicarDatabase()
  })
  afterAll(async () => {
    await model.close()
    clamdb.remove()
  })

  it('reads the French text of a clean image into the prompt, after the body, and stores it nowhere', async () => {
    const { db } = database()
    const scratch = mkdtempSync(join(tmpdir(), 'atlas-ocr-test-'))
    const png = await renderTextPng(SCREENSHOT_TEXT)
    const raw = await compose({
      from: 'alex@studio.example', subject: 'regarde ça', text: 'Voir la capture.',
      attachments: [{ filename: 'capture.png', content: png, contentType: 'image/png' }, { filename: 'lisezmoi.txt', content: 'pas une image' }],
    })
    model.answer(json('run', 0.9, 'a blocked invoice'))
    const config = testConfig({ ATLAS_OCR_ENABLED: '1', CLAMAV_DATABASE: clamdb.dir, ATLAS_TMP_DIR: scratch })
    const delivery = await deliver(db, model.facade(db), [raw], { config })
    expect(delivery.report.classified).toBe(1)

    const prompt = model.prompt()
    // The image text sits after the body, inside the untrusted block.
    const start = prompt.indexOf(`\n${OCR_LABEL}\n`)
    const end = prompt.search(/\n<<<UNTRUSTED_DATA_END_[0-9a-f]{24}>>>/)
    expect(start).toBeGreaterThan(prompt.indexOf(`\n${BODY_LABEL}\n`))
    expect(end).toBeGreaterThan(start)
    expect(prompt.slice(start, end)).toContain(SCREENSHOT_TEXT)

    const id = delivery.stored[0]!.messageRowId
    // Unsigned: the founder's address alone is no founder; the run waits for a person.
    expect(await inboxOf(db, id)).toMatchObject({ status: 'awaiting_approval', intent: 'run' })
    const ocr = (await auditOf(db, id)).find(a => a.action === 'ocr_extracted')
    expect(ocr!.details).toMatchObject({ images: 1 })
    expect(ocr!.details.characters).toBeGreaterThanOrEqual(SCREENSHOT_TEXT.length)

    // Not in any table: every row of every table, as text.
    const tables = await db.execute<{ name: string }>(sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`)
    expect(tables.length).toBeGreaterThan(10)
    for (const { name } of tables) {
      for (const word of WORDS) {
        const [hit] = await db.execute<{ n: number }>(sql`select count(*)::int as n from ${sql.identifier(name)} t where t::text ilike ${`%${word}%`}`)
        expect(hit!.n, `${word} found in ${name}`).toBe(0)
      }
    }
    for (const line of delivery.logs) for (const word of WORDS) expect(line).not.toContain(word)
    // No attachment folder, no language data folder left behind.
    expect(readdirSync(scratch)).toEqual([])
    rmSync(scratch, { recursive: true })
  }, 90_000)
})
