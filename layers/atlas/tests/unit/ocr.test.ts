// OCR with the real tesseract.js engine and the packaged French and English data: one
// worker reused and recycled, big images downscaled, nothing written to the working folder.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readAtlasConfig } from '../../core/config'
import { createOcrEngine, extractImageText, isOcrCandidate, prepareImage } from '../../core/ocr'
import { renderTextPng } from '../fixtures/mail'

const config = { ...readAtlasConfig({}).ocr, recycleAfter: 2 }
let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'atlas-ocr-unit-'))
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('OCR', () => {
  it('reads French text, reuses one worker and recycles it after the bound', async () => {
    const before = new Set(readdirSync(process.cwd()))
    const engine = createOcrEngine(config)
    const texts = ['Facture impayée numéro 4521', 'Le déploiement a échoué hier soir', 'Erreur 502 sur la préproduction']
    const files = await Promise.all(texts.map(async (text, i) => {
      const path = join(dir, `${i}.png`)
      writeFileSync(path, await renderTextPng(text))
      return { position: i, path, contentType: 'image/png' }
    }))
    try {
      const result = await extractImageText(engine, files, config)
      expect(result.images).toBe(3)
      for (const text of texts) expect(result.text).toContain(text)
      expect(engine.workersStarted()).toBe(2)
      expect(engine.jobsOnWorker()).toBe(1)
    }
    finally {
      await engine.close()
    }
    const after = readdirSync(process.cwd()).filter(name => !before.has(name))
    expect(after).toEqual([])
    expect(existsSync(join(process.cwd(), 'fra.traineddata'))).toBe(false)
  }, 60_000)

  it('downscales an image past the bound, and skips what is not an image', async () => {
    const big = join(dir, 'big.png')
    await sharp({ create: { width: 6000, height: 1200, channels: 3, background: '#ffffff' } }).png().toFile(big)
    const prepared = await prepareImage(big, { maxDimension: 2500, maxInputPixels: 50_000_000 })
    expect(prepared.downscaled).toBe(true)
    const meta = await sharp(prepared.image).metadata()
    expect([meta.width, meta.height]).toEqual([2500, 500])
    const fake = join(dir, 'fake.png')
    writeFileSync(fake, 'this is not a PNG')
    const engine = createOcrEngine(config)
    try {
      const result = await extractImageText(engine, [{ position: 4, path: fake, contentType: 'image/png' }], config)
      expect(result.images).toBe(0)
      expect(result.skipped[0]!.reason).toMatch(/^not a readable image/)
      expect(engine.workersStarted()).toBe(0)
    }
    finally {
      await engine.close()
    }
    expect(isOcrCandidate('image/jpeg')).toBe(true)
    expect(isOcrCandidate('application/pdf')).toBe(false)
  })
})
