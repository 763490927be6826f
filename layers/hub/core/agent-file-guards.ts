// The agent files' guards (issue 35, Deliver 3), wired here because the agents layer may not
// import Atlas or spawn: Atlas's ClamAV scanner (clamd INSTREAM when CLAMD_HOST is set,
// clamscan otherwise) on a private temporary copy of the bytes, removed at once; Atlas's OCR
// (tesseract.js, French and English, one worker kept across images) whose text stays in
// memory; and spawn's untrusted fence. The same settings as Atlas (CLAMD_*, CLAMSCAN_BIN,
// CLAMAV_DATABASE, ATLAS_OCR_*, ATLAS_TMP_DIR).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FileGuards } from '#layers/agents/core/files/ports'
import { readAtlasConfig } from '#layers/atlas/core/config'
import { createOcrEngine, prepareImage, type OcrEngine } from '#layers/atlas/core/ocr'
import { createScanner, type Scanner } from '#layers/atlas/core/scan/clamav'
import { untrustedFence } from './webhook-wiring'

export interface FileGuardOptions {
  env: Record<string, string | undefined>
  /** The largest file the scanner is given (clamscan's limits are raised to it). */
  maxFileBytes: number
  /** Tests pass their own (a clamd started for them); the default follows the environment. */
  scanner?: Scanner
  ocr?: () => OcrEngine
}

/** Writes the bytes to a file only this process reads, runs `work` on its path, removes it whatever happens. */
async function withPrivateCopy<T>(tmpDir: string, bytes: Buffer, work: (path: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpDir, 'agent-file-'))
  try {
    const path = join(dir, 'upload')
    writeFileSync(path, bytes, { mode: 0o600 })
    chmodSync(path, 0o600)
    return await work(path)
  }
  finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export function agentFileGuards(options: FileGuardOptions): FileGuards & { close: () => Promise<void> } {
  const config = readAtlasConfig(options.env)
  const scanner = options.scanner ?? createScanner(config.scanner, options.maxFileBytes)
  let engine: OcrEngine | undefined
  return {
    scan: async bytes => await withPrivateCopy(config.tmpDir, bytes, async (path) => {
      const verdict = (await scanner.scanFiles([path])).get(path)
      return verdict ?? { verdict: 'error', reason: 'the scanner gave no verdict', scanner: scanner.name }
    }),
    ocr: async (image) => {
      if (!config.ocr.enabled) throw new Error('OCR is off on this hub (ATLAS_OCR_ENABLED=0): the image\'s text cannot be read')
      engine ??= options.ocr ? options.ocr() : createOcrEngine(config.ocr, config.tmpDir)
      const prepared = await withPrivateCopy(config.tmpDir, image, async path => (await prepareImage(path, config.ocr)).image)
      return await engine.recognise(prepared)
    },
    fence: untrustedFence,
    close: async () => {
      await engine?.close()
      engine = undefined
    },
  }
}
