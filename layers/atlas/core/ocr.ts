// OCR of image attachments with tesseract.js, French and English, the language data read
// from the @tesseract.js-data packages on disk (no CDN, no cache files: the two files are
// linked into a private temporary folder for the worker, removed on close). One worker is
// reused across images and recycled after a bounded number of jobs; large images are
// downscaled first. The text stays in memory: callers put it in the prompt and nowhere else.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import sharp from 'sharp'
import { createWorker, OEM, type Worker } from 'tesseract.js'
import type { OcrConfig } from './config'

export const OCR_LANGUAGES = ['fra', 'eng'] as const

export interface OcrImage {
  position: number
  path: string
  contentType: string
}

export interface OcrResult {
  text: string
  /** Images whose text was read. */
  images: number
  skipped: Array<{ position: number, reason: string }>
}

export interface OcrEngine {
  recognise: (image: Buffer) => Promise<string>
  /** Recognitions since the current worker started. */
  jobsOnWorker: () => number
  workersStarted: () => number
  close: () => Promise<void>
}

/** The folder holding the packaged `<lang>.traineddata.gz` (LSTM "best_int" models). */
function languageFile(code: string): string {
  const require = createRequire(import.meta.url)
  const data = require(`@tesseract.js-data/${code}`) as { langPath: string }
  return join(`${data.langPath}_best_int`, `${code}.traineddata.gz`)
}

/** `tmpDir`: where the private language-data folder goes (ATLAS_TMP_DIR in the collector). */
export function createOcrEngine(config: Pick<OcrConfig, 'recycleAfter'>, tmpDir = tmpdir()): OcrEngine {
  let worker: Worker | undefined
  let starting: Promise<Worker> | undefined
  let dataDir: string | undefined
  let jobs = 0
  let started = 0

  const start = async (): Promise<Worker> => {
    if (!dataDir) {
      dataDir = mkdtempSync(join(tmpDir, 'atlas-tessdata-'))
      for (const code of OCR_LANGUAGES) symlinkSync(languageFile(code), join(dataDir, `${code}.traineddata.gz`))
    }
    const created = await createWorker([...OCR_LANGUAGES], OEM.LSTM_ONLY, { langPath: dataDir, cacheMethod: 'none', gzip: true })
    started += 1
    jobs = 0
    return created
  }

  const current = async (): Promise<Worker> => {
    if (worker && jobs >= config.recycleAfter) {
      const old = worker
      worker = undefined
      await old.terminate()
    }
    if (!worker) {
      starting ??= start()
      try {
        worker = await starting
      }
      finally {
        starting = undefined
      }
    }
    return worker
  }

  return {
    recognise: async (image) => {
      const active = await current()
      jobs += 1
      const { data } = await active.recognize(image)
      return data.text
    },
    jobsOnWorker: () => jobs,
    workersStarted: () => started,
    close: async () => {
      const old = worker
      worker = undefined
      if (old) await old.terminate()
      if (dataDir) rmSync(dataDir, { recursive: true, force: true })
      dataDir = undefined
    },
  }
}

const IMAGE_TYPES = /^image\/(png|jpe?g|gif|webp|tiff?|bmp)$/

export function isOcrCandidate(contentType: string): boolean {
  return IMAGE_TYPES.test(contentType.toLowerCase())
}

/** Decodes, flattens on white, downscales past the bound and hands tesseract a grey PNG. */
export async function prepareImage(path: string, config: Pick<OcrConfig, 'maxDimension' | 'maxInputPixels'>): Promise<{ image: Buffer, downscaled: boolean }> {
  const input = sharp(path, { limitInputPixels: config.maxInputPixels, failOn: 'error' })
  const meta = await input.metadata()
  const width = meta.width ?? 0
  const height = meta.height ?? 0
  const downscaled = width > config.maxDimension || height > config.maxDimension
  let pipeline = input.flatten({ background: '#ffffff' }).greyscale()
  if (downscaled) pipeline = pipeline.resize({ width: config.maxDimension, height: config.maxDimension, fit: 'inside' })
  return { image: await pipeline.png().toBuffer(), downscaled }
}

/** Reads the text of a message's images (up to the configured number), in position order. */
export async function extractImageText(engine: OcrEngine, images: OcrImage[], config: OcrConfig): Promise<OcrResult> {
  const result: OcrResult = { text: '', images: 0, skipped: [] }
  const parts: string[] = []
  for (const image of images) {
    if (result.images >= config.maxImages) {
      result.skipped.push({ position: image.position, reason: `over ATLAS_OCR_MAX_IMAGES (${config.maxImages})` })
      continue
    }
    let prepared: Buffer
    try {
      prepared = (await prepareImage(image.path, config)).image
    }
    catch (error) {
      result.skipped.push({ position: image.position, reason: `not a readable image: ${(error as Error).message.slice(0, 200)}` })
      continue
    }
    const text = (await engine.recognise(prepared)).trim()
    result.images += 1
    if (text) parts.push(text)
  }
  result.text = parts.join('\n\n')
  return result
}
