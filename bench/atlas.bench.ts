// The Atlas pipeline's own cost: 1,000 text-only messages appended to a real Dovecot on
// loopback, collected, stored, flagged \Seen, scanned (nothing to scan) and classified
// through the AI facade by a loopback model that answers at once, on native PostgreSQL;
// and clamd's INSTREAM time per attachment (a real clamd with the test signature database).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { collect } from '#layers/atlas/core/collector'
import { readAtlasConfig } from '#layers/atlas/core/config'
import { clamdInstream } from '#layers/atlas/core/scan/clamav'
import { startClamd, writeEicarDatabase } from '#layers/atlas/tests/fakes/clamav'
import { json } from '#layers/atlas/tests/fakes/model'
import { startCollectorWorld } from '#layers/atlas/tests/fixtures/collector-world'
import { compose } from '#layers/atlas/tests/fixtures/mail'
import { nativeBenchDatabase } from './databases'
import { median, type BenchFigure } from './lib'

const MESSAGES = 1000
const ATTACHMENTS = 200
const ATTACHMENT_BYTES = 100 * 1024

async function pipeline(): Promise<{ seconds: number, cycles: number, timings: { imapMs: number, pipelineMs: number }[] }> {
  const database = await nativeBenchDatabase('atlas', { max: 5 })
  const { user, dovecot, model, scratch, close } = await startCollectorWorld('bench')
  try {
    model.byDefault(() => json('run', 0.92, 'bench'))
    const mailbox = 'Bench'
    const messages: Buffer[] = []
    for (let i = 0; i < MESSAGES; i++) messages.push(await compose({ subject: `Demande ${i}`, text: `Bonjour,\n\nle formulaire ${i} renvoie une erreur 500 depuis ce matin.\n\nMerci` }))
    await dovecot.append(user, mailbox, messages)
    const config = readAtlasConfig({ ...dovecot.env(user, mailbox), ATLAS_MAX_MESSAGES_PER_CYCLE: String(MESSAGES), ATLAS_OCR_ENABLED: '0', ATLAS_TMP_DIR: scratch })
    const ai = model.facade(database.db)
    const started = process.hrtime.bigint()
    let cycles = 0
    let classified = 0
    const timings: { imapMs: number, pipelineMs: number }[] = []
    while (classified < MESSAGES && cycles < 5) {
      const report = await collect({ db: database.db, ai, config, log: () => {} })
      process.stderr.write(`[bench]   cycle ${cycles + 1}: IMAP ${report.timings.imapMs} ms, pipeline ${report.timings.pipelineMs} ms\n`)
      timings.push({ imapMs: report.timings.imapMs, pipelineMs: report.timings.pipelineMs })
      cycles += 1
      if (report.imap !== 'ok') throw new Error(`IMAP failed: ${report.imapError}`)
      // The bench's sender is a stranger (no DKIM, not on the team list): admission holds each
      // classified message in awaiting_approval. Both statuses mean the pipeline reached its end.
      const [row] = await database.db.execute<{ n: number }>(sql`select count(*)::int as n from atlas_inbox where status in ('classified', 'awaiting_approval') and intent is not null`)
      classified = row!.n
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    await ai.flush()
    if (classified !== MESSAGES) throw new Error(`only ${classified} of ${MESSAGES} messages were classified`)
    return { seconds, cycles, timings }
  }
  finally {
    await close()
    await database.close()
  }
}

async function scanning(): Promise<number> {
  const signatures = writeEicarDatabase()
  const dir = mkdtempSync(join(tmpdir(), 'atlas-bench-scan-'))
  const clamd = await startClamd(signatures.dir)
  try {
    const files = Array.from({ length: ATTACHMENTS }, (_, i) => {
      const path = join(dir, `${i}.bin`)
      writeFileSync(path, randomBytes(ATTACHMENT_BYTES))
      return path
    })
    for (const path of files.slice(0, 10)) await clamdInstream(clamd.host, clamd.port, path, 30_000)
    const durations: number[] = []
    for (const path of files) {
      const start = process.hrtime.bigint()
      const verdict = await clamdInstream(clamd.host, clamd.port, path, 30_000)
      durations.push(Number(process.hrtime.bigint() - start) / 1e6)
      if (verdict.verdict !== 'clean') throw new Error(`unexpected verdict ${JSON.stringify(verdict)}`)
    }
    return median(durations)
  }
  finally {
    await clamd.stop()
    signatures.remove()
    rmSync(dir, { recursive: true, force: true })
  }
}

export default async function (): Promise<BenchFigure[]> {
  const run = await pipeline()
  const scanMs = await scanning()
  const context = {
    messages: MESSAGES,
    cycles: run.cycles,
    cycleTimings: run.timings,
    sender: 'a stranger (unauthenticated): each message ends classified and awaiting approval; the approval and the spawn are not measured',
    path: 'Dovecot (loopback IMAP) → parse → store → \\Seen → scan (no attachment) → classify (AI facade, loopback model answering at once) → admission (awaiting approval)',
    database: 'native PostgreSQL',
  }
  return [
    { name: 'atlas.pipeline_msgs_per_s', value: Number((MESSAGES / run.seconds).toFixed(1)), unit: 'msg/s', lowerIsBetter: false, context },
    { name: 'atlas.pipeline_ms_per_msg', value: Number(((run.seconds * 1000) / MESSAGES).toFixed(2)), unit: 'ms', lowerIsBetter: true, context },
    { name: 'atlas.scan_ms_per_attachment', value: Number(scanMs.toFixed(2)), unit: 'ms', lowerIsBetter: true, context: { scanner: 'clamd INSTREAM (loopback, test signature database)', attachments: ATTACHMENTS, bytes: ATTACHMENT_BYTES, statistic: 'median' } },
  ]
}
