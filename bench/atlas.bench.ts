// The Atlas pipeline's own cost (atlas.collect_s_1000: the collect cycles end to end, IMAP +
// pipeline, with each cycle's split in the context): 1,000 text-only messages appended to a real Dovecot on
// loopback, collected, stored, flagged \Seen, scanned (nothing to scan) and classified
// through the AI facade by a loopback model that answers at once, on native PostgreSQL;
// the per-cycle DNS (auth/cycle-resolver.ts) against the system resolver asked by every mail,
// side by side on the same mail (atlas.ingest_ms_per_msg_*); and clamd's INSTREAM time per
// attachment (a real clamd with the test signature database).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { promises as dns } from 'node:dns'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { collect } from '#layers/atlas/core/collector'
import { readAtlasConfig } from '#layers/atlas/core/config'
import { cycleResolver } from '#layers/atlas/core/auth/cycle-resolver'
import type { DNSResolver } from '#layers/atlas/core/auth/verify'
import { withDeadline } from '#layers/base/core/deadline'
import { collectDropFolder } from '#layers/atlas/core/ingest/drop-folder'
import { clamdInstream } from '#layers/atlas/core/scan/clamav'
import { startClamd, writeEicarDatabase } from '#layers/atlas/tests/fakes/clamav'
import { json } from '#layers/atlas/tests/fakes/model'
import { startCollectorWorld } from '#layers/atlas/tests/fixtures/collector-world'
import { compose } from '#layers/atlas/tests/fixtures/mail'
import { createZone } from '#layers/atlas/tests/fixtures/sender-auth'
import { nativeBenchDatabase } from './databases'
import { median, sized, type BenchFigure } from './lib'

// BENCH_SIZE=tiny (bench/lib.ts): 20 mails collected, 20 a side for the resolvers (2 rounds), 5 attachments scanned.
const MESSAGES = sized(1000, 20)
const ATTACHMENTS = sized(200, 5)
const SCAN_WARMUP = sized(10, 1)
const ATTACHMENT_BYTES = 100 * 1024
/** Mails ingested through each resolver, in ROUNDS alternating rounds, after WARMUP each. */
const RESOLVER_MESSAGES = sized(1000, 20)
const RESOLVER_ROUNDS = sized(4, 2)
const RESOLVER_WARMUP = sized(20, 2)
/** A system resolver that answers nothing costs each mail the whole auth deadline: so few mails, a short deadline. */
const SILENT_DNS_MESSAGES = 4
const SILENT_DNS_TIMEOUT_MS = 2000
const TEAM_MEMBER = 'camille@studio.example'

async function pipeline(): Promise<{ seconds: number, cycles: number, timings: { imapMs: number, pipelineMs: number }[] }> {
  const database = await nativeBenchDatabase('atlas', { max: 5 })
  const { user, dovecot, model, scratch, close } = await startCollectorWorld('bench')
  try {
    model.byDefault(() => json('run', 0.92, 'bench'))
    const mailbox = 'Bench'
    const messages: Buffer[] = []
    // Admitted mail: a team member whose DKIM signature (a key on the loopback zone) aligns with the From.
    const zone = createZone()
    const sign = zone.dkimKey('studio.example')
    for (let i = 0; i < MESSAGES; i++) messages.push(await sign(await compose({ from: `Camille <${TEAM_MEMBER}>`, subject: `Demande ${i}`, text: `Bonjour,\n\nle formulaire ${i} renvoie une erreur 500 depuis ce matin.\n\nMerci` })))
    await dovecot.append(user, mailbox, messages)
    const config = readAtlasConfig({ ...dovecot.env(user, mailbox), ATLAS_MAX_MESSAGES_PER_CYCLE: String(MESSAGES), ATLAS_OCR_ENABLED: '0', ATLAS_TMP_DIR: scratch, INTERNAL_TEAM_EMAILS: TEAM_MEMBER })
    const ai = model.facade(database.db)
    const started = process.hrtime.bigint()
    let cycles = 0
    let classified = 0
    const timings: { imapMs: number, pipelineMs: number }[] = []
    while (classified < MESSAGES && cycles < 5) {
      const report = await collect({ db: database.db, ai, config, log: () => {}, resolver: zone.resolver })
      process.stderr.write(`[bench]   cycle ${cycles + 1}: IMAP ${report.timings.imapMs} ms, pipeline ${report.timings.pipelineMs} ms\n`)
      timings.push({ imapMs: report.timings.imapMs, pipelineMs: report.timings.pipelineMs })
      cycles += 1
      if (report.imap !== 'ok') throw new Error(`IMAP failed: ${report.imapError}`)
      // Through the pipeline: classified and admitted (an authenticated team member's run is queued for its spawn).
      const [row] = await database.db.execute<{ n: number }>(sql`select count(*)::int as n from atlas_inbox where intent is not null and status not in ('received', 'classification_failed', 'awaiting_approval')`)
      classified = row!.n
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    await ai.flush()
    if (classified !== MESSAGES) {
      const statuses = await database.db.execute<{ status: string, n: number }>(sql`select status, count(*)::int as n from atlas_inbox group by status`)
      throw new Error(`only ${classified} of ${MESSAGES} messages were classified and admitted (${statuses.map(r => `${r.status}: ${r.n}`).join(', ')})`)
    }
    return { seconds, cycles, timings }
  }
  finally {
    await close()
    await database.close()
  }
}

interface ResolverSide { seconds: number, messages: number, lookups: number }

/** Null when the system resolver answers (even "no such name"); why not otherwise. */
async function systemDnsSilence(): Promise<string | null> {
  try {
    await withDeadline(dns.resolve('_dmarc.studio.example', 'TXT'), SILENT_DNS_TIMEOUT_MS, () => {
      throw Object.assign(new Error(`no answer within ${SILENT_DNS_TIMEOUT_MS} ms`), { code: 'ETIMEOUT' })
    })
    return null
  }
  catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? ''
    return ['ETIMEOUT', 'ECONNREFUSED', 'ECANCELLED'].includes(code) ? `${code}: ${(error as Error).message}` : null
  }
}

/**
 * What the per-cycle resolver saves, in one run: the same team member's DKIM-signed mail
 * ingested through the watched folder (collectDropFolder: parse → sender authentication →
 * store, the per-mail part of collect's IMAP time; it takes the resolver as given, where
 * collect() always wraps its own in cycleResolver), with the system resolver asked by every
 * mail (as before auth/cycle-resolver.ts) and through cycleResolver over that same system
 * resolver (a new one per call, as collect() makes one per cycle), alternating rounds.
 */
async function resolverSideBySide(): Promise<{ system: ResolverSide, cycle: ResolverSide, silence: string | null, timeoutMs: number }> {
  const database = await nativeBenchDatabase('atlas_dns', { max: 3 })
  const dropDir = mkdtempSync(join(tmpdir(), 'atlas-bench-drop-'))
  const scratch = mkdtempSync(join(tmpdir(), 'atlas-bench-dns-'))
  try {
    const silence = await systemDnsSilence()
    const perSide = silence ? Math.min(SILENT_DNS_MESSAGES, RESOLVER_MESSAGES) : RESOLVER_MESSAGES
    if (silence) process.stderr.write(`[bench]   the system resolver answers nothing (${silence}): ${perSide} mails a side, auth deadline ${SILENT_DNS_TIMEOUT_MS} ms\n`)
    const config = readAtlasConfig({
      ATLAS_DROP_DIR: dropDir, ATLAS_TMP_DIR: scratch, ATLAS_OCR_ENABLED: '0', INTERNAL_TEAM_EMAILS: TEAM_MEMBER,
      ...(silence ? { ATLAS_AUTH_TIMEOUT_MS: String(SILENT_DNS_TIMEOUT_MS) } : {}),
    })
    // The key signs; the system resolver does not know it (what is timed is the lookups, not the verdict).
    const sign = createZone().dkimKey('studio.example')
    let lookups = 0
    const system: DNSResolver = (name, rrtype) => {
      lookups += 1
      return dns.resolve(name, rrtype) as Promise<string[][] | string[]>
    }
    const resolvers = {
      system: () => system,
      cycle: () => cycleResolver({ timeoutMs: config.senderAuth.timeoutMs, log: () => {}, base: system }),
    }
    const sides: Record<keyof typeof resolvers, ResolverSide> = {
      system: { seconds: 0, messages: 0, lookups: 0 },
      cycle: { seconds: 0, messages: 0, lookups: 0 },
    }
    let written = 0
    const batch = async (side: keyof typeof resolvers, count: number, timed: boolean) => {
      for (let i = 0; i < count; i++, written++) {
        writeFileSync(join(dropDir, `${String(written).padStart(6, '0')}.eml`), await sign(await compose({ from: `Camille <${TEAM_MEMBER}>`, subject: `Demande ${written}`, text: `Bonjour,\n\nle formulaire ${written} renvoie une erreur 500 depuis ce matin.\n\nMerci` })))
      }
      const asked = lookups
      const started = process.hrtime.bigint()
      const items = await collectDropFolder({ db: database.db, config, actor: 'bench', log: () => {}, dir: join(scratch, `cycle-${written}`), now: () => Date.now() + 60_000, resolver: resolvers[side]() })
      const seconds = Number(process.hrtime.bigint() - started) / 1e9
      if (items.length !== count) throw new Error(`the watched folder stored ${items.length} of ${count} mails for the pipeline (${side} resolver)`)
      if (!timed) return
      sides[side].seconds += seconds
      sides[side].messages += count
      sides[side].lookups += lookups - asked
    }
    for (const side of ['system', 'cycle'] as const) await batch(side, RESOLVER_WARMUP, false)
    for (let round = 0; round < RESOLVER_ROUNDS; round++) {
      for (const side of ['system', 'cycle'] as const) await batch(side, Math.ceil(perSide / RESOLVER_ROUNDS), true)
    }
    for (const [side, measured] of Object.entries(sides)) process.stderr.write(`[bench]   ${side} resolver: ${measured.messages} mails in ${measured.seconds.toFixed(2)} s, ${measured.lookups} DNS lookups\n`)
    return { ...sides, silence, timeoutMs: config.senderAuth.timeoutMs }
  }
  finally {
    await database.close()
    rmSync(dropDir, { recursive: true, force: true })
    rmSync(scratch, { recursive: true, force: true })
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
    for (const path of files.slice(0, SCAN_WARMUP)) await clamdInstream(clamd.host, clamd.port, path, 30_000)
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
  const resolving = await resolverSideBySide()
  const scanMs = await scanning()
  const context = {
    messages: MESSAGES,
    cycles: run.cycles,
    cycleTimings: run.timings,
    sender: 'an authenticated team member (DKIM aligned, loopback DNS zone): admitted, each run queued for its spawn; the spawn itself is not measured',
    path: 'Dovecot (loopback IMAP) → parse → sender authentication → store → \\Seen → scan (no attachment) → classify (AI facade, loopback model answering at once) → admission → spawn queued',
    database: 'native PostgreSQL',
  }
  return [
    {
      name: 'atlas.collect_s_1000', value: Number(run.seconds.toFixed(2)), unit: 's', lowerIsBetter: true,
      context: { ...context, imapIncludes: 'the IMAP session and, per mail, parse → sender authentication (DNS asked once per cycle) → store → \\Seen' },
    },
    { name: 'atlas.pipeline_msgs_per_s', value: Number((MESSAGES / run.seconds).toFixed(1)), unit: 'msg/s', lowerIsBetter: false, context },
    { name: 'atlas.pipeline_ms_per_msg', value: Number(((run.seconds * 1000) / MESSAGES).toFixed(2)), unit: 'ms', lowerIsBetter: true, context },
    ...(['system', 'cycle'] as const).map((side): BenchFigure => {
      const other = side === 'system' ? 'cycle' : 'system'
      const msPerMessage = (measured: ResolverSide) => Number(((measured.seconds * 1000) / measured.messages).toFixed(2))
      return {
        name: `atlas.ingest_ms_per_msg_${side}_resolver`,
        value: msPerMessage(resolving[side]),
        unit: 'ms',
        lowerIsBetter: true,
        context: {
          resolver:
            side === 'system'
              ? 'the system resolver (node:dns resolve, as mailauth asks it by default), asked by every mail'
              : 'cycleResolver (auth/cycle-resolver.ts, what collect() uses) over the same system resolver: each name asked once per cycle',
          path: 'watched folder (collectDropFolder) → parse → sender authentication (DKIM, SPF, DMARC lookups) → store; no IMAP, no pipeline',
          sender: 'a team member, DKIM-signed with a key the system resolver does not know',
          messages: resolving[side].messages,
          rounds: RESOLVER_ROUNDS,
          dnsLookups: resolving[side].lookups,
          [`${other}ResolverMsPerMsg`]: msPerMessage(resolving[other]),
          [`${other}ResolverDnsLookups`]: resolving[other].lookups,
          systemOverCycle: Number(
            (resolving.system.seconds / resolving.system.messages / (resolving.cycle.seconds / resolving.cycle.messages)).toFixed(2),
          ),
          systemDns: resolving.silence
            ? `answers nothing (${resolving.silence}): ${resolving.system.messages} mails a side, auth deadline ${resolving.timeoutMs} ms`
            : 'answers',
          database: 'native PostgreSQL',
        },
      }
    }),
    { name: 'atlas.scan_ms_per_attachment', value: Number(scanMs.toFixed(2)), unit: 'ms', lowerIsBetter: true, context: { scanner: 'clamd INSTREAM (loopback, test signature database)', attachments: ATTACHMENTS, bytes: ATTACHMENT_BYTES, statistic: 'median' } },
  ]
}
