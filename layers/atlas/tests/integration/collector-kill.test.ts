// The collector as a real process (npm run automate atlas-collect), killed with SIGKILL at
// named points of a cycle (ATLAS_COLLECT_PAUSE_AT, the test-only pause), then run again:
// every message ends up stored exactly once, classified, flagged \Seen, and no attachment
// folder is left behind. The mails are strangers' (the process checks senders against the real
// DNS): they wait for approval with no work record, and each approval creates exactly one.
import { readdirSync } from 'node:fs'
import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs, startTs } from '#tests/helpers/processes'
import { atlasInbox, atlasMessages } from '#db/schema/atlas'
import { workQuestions } from '#db/schema/work'
import { decideApproval } from '../../core/approval'
import { startCollectorWorld, type CollectorWorld } from '../fixtures/collector-world'
import { compose, uniqueId } from '../fixtures/mail'

/**
 * Where to kill (point@occurrence: mid-batch, after some messages and before others), and
 * what the mailbox and the database hold at that moment: [stored, \Seen, classified].
 * One classification at a time, so that the state at the kill is known exactly.
 */
const POINTS: Array<{ point: string, concurrency: number, atKill: [number, number, number] }> = [
  { point: 'after_fetch@1', concurrency: 1, atKill: [0, 0, 0] },
  // The point where the broken build of soak-fault.test.ts (\Seen first) loses its mail: this one does not.
  { point: 'before_insert@2', concurrency: 1, atKill: [1, 1, 0] },
  { point: 'after_insert@2', concurrency: 1, atKill: [2, 1, 0] },
  { point: 'after_seen@3', concurrency: 1, atKill: [3, 3, 0] },
  { point: 'after_ingest@1', concurrency: 1, atKill: [4, 4, 0] },
  { point: 'after_scan@1', concurrency: 1, atKill: [4, 4, 0] },
  { point: 'before_classify_commit@2', concurrency: 1, atKill: [4, 4, 1] },
]

describeOnBothDatabases('Atlas collector killed mid-cycle', (database, kind) => {
  let world: CollectorWorld

  beforeAll(async () => {
    world = await startCollectorWorld('kill-test')
  }, 60_000)
  afterAll(async () => await world?.close())

  for (const { point, concurrency, atKill } of POINTS) {
    it(`killed at ${point} (${concurrency} classification(s) at a time), then run again: every message exactly once`, async () => {
      const { db, url } = database()
      const mailbox = `Kill-${point.replace('@', '-')}-c${concurrency}-${kind}`
      const ids = Array.from({ length: 4 }, () => uniqueId('kill'))
      await world.dovecot.append(world.user, mailbox, [
        await compose({ messageId: ids[0], subject: 'Premier' }),
        await compose({ messageId: ids[1], subject: 'Deuxième', attachments: [{ filename: 'note.txt', content: 'pièce jointe' }] }),
        await compose({ messageId: ids[2], subject: 'Troisième' }),
        await compose({ messageId: ids[3], subject: 'Quatrième', attachments: [{ filename: 'autre.txt', content: 'encore' }] }),
      ])
      const env = {
        DATABASE_URL: url,
        ...world.dovecot.env(world.user, mailbox),
        ...world.model.env,
        ANTHROPIC_API_KEY: '',
        OPENAI_API_KEY: '',
        CLAMAV_DATABASE: world.clamdb.dir,
        CLAMD_HOST: '',
        ATLAS_OCR_ENABLED: '0',
        ATLAS_TMP_DIR: world.scratch,
        ATLAS_CLASSIFY_CONCURRENCY: String(concurrency),
      }
      const killed = startTs('automates/run.ts', ['atlas-collect'], { env: { ...env, ATLAS_COLLECT_PAUSE_AT: point } })
      await killed.waitFor(new RegExp(`paused at ${point}`), 60_000)
      killed.child.kill('SIGKILL')
      const end = await killed.exited
      expect(end.signal).toBe('SIGKILL')
      const stored = await db
        .select({ status: atlasInbox.status })
        .from(atlasMessages)
        .innerJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id))
        .where(eq(atlasMessages.mailbox, mailbox))
      const seenAtKill = [...(await world.dovecot.flags(world.user, mailbox)).values()].filter(f => f.has('\\Seen')).length
      // Strangers' questions: classified, then waiting for approval.
      const classifiedAtKill = stored.filter(r => r.status === 'awaiting_approval').length
      expect([stored.length, seenAtKill, classifiedAtKill]).toEqual(atKill)

      // The killed run's lease would expire after its TTL; fast-forward that expiry.
      await db.execute(sql`update ops_locks set expires_at = now() - interval '1 second' where name = 'automate:atlas-collect'`)
      const rerun = await runTs('automates/run.ts', ['atlas-collect', '--json'], { env })
      expect(rerun.code, rerun.output).toBe(0)

      const rows = await db
        .select({ messageId: atlasMessages.messageId, status: atlasInbox.status, kind: atlasInbox.materialisedKind, id: atlasMessages.id })
        .from(atlasMessages)
        .innerJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id))
        .where(eq(atlasMessages.mailbox, mailbox))
      expect(rows.map(r => r.messageId).sort()).toEqual([...ids].sort())
      // Nothing materialised before admission; each approval then creates one question.
      expect(rows.every(r => r.status === 'awaiting_approval' && r.kind === null), JSON.stringify(rows)).toBe(true)
      for (const row of rows) {
        expect(await db.select().from(workQuestions).where(eq(workQuestions.sourceMessageId, row.id))).toHaveLength(0)
        expect(await decideApproval(db, row.id, 'approve', 'operator@studio.example')).toMatchObject({ ok: true, materialised: { kind: 'question', action: 'created' } })
        expect(await db.select().from(workQuestions).where(eq(workQuestions.sourceMessageId, row.id))).toHaveLength(1)
      }
      const flags = await world.dovecot.flags(world.user, mailbox)
      expect(flags.size).toBe(4)
      expect([...flags.values()].every(f => f.has('\\Seen'))).toBe(true)
      // The killed cycle's attachment folder was removed by the next run.
      expect(readdirSync(world.scratch)).toEqual([])
      expect(rerun.output).toMatch(/"imap":"ok"/)
    }, 120_000)
  }
})
