// The IMAP session's part of a cycle: UIDVALIDITY tracked, unseen UIDs fetched in batches
// bounded in bytes, each message stored then flagged \Seen, earlier pending messages refetched.
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { recordAtlasAudit } from './audit'
import type { CollectDeps, Cycle, PendingRow } from './collect-cycle'
import type { MailboxSession } from './ingest/imap'
import { filesOf, ingestSource, parseInto } from './ingest-source'

const FETCH_BATCH_BYTES = 64 * 1024 * 1024

async function trackUidValidity(deps: CollectDeps, session: MailboxSession, actor: string): Promise<boolean> {
  const rows = await deps.db.execute<{ previous: number | null }>(sql`
    with previous as (select uid_validity from atlas_mailbox_state where mailbox = ${session.mailbox})
    insert into atlas_mailbox_state (mailbox, uid_validity, last_uid, last_polled_at)
    values (${session.mailbox}, ${session.uidValidity}, 0, now())
    on conflict (mailbox) do update set
      uid_validity = excluded.uid_validity,
      last_uid = case when atlas_mailbox_state.uid_validity = excluded.uid_validity then atlas_mailbox_state.last_uid else 0 end,
      last_polled_at = now()
    returning (select uid_validity from previous) as previous`)
  const previous = rows[0]?.previous
  const changed = previous !== null && previous !== undefined && Number(previous) !== session.uidValidity
  if (changed) {
    await recordAtlasAudit(deps.db, {
      action: 'uidvalidity_changed', actor,
      details: { mailbox: session.mailbox, previous: Number(previous), current: session.uidValidity, note: 'UIDs of earlier messages no longer designate them; messages are still keyed on their Message-ID' },
    })
    deps.log(`[atlas-collect] UIDVALIDITY of ${session.mailbox} changed from ${previous} to ${session.uidValidity}`)
  }
  return changed
}

/** Batches bounded in bytes (a message over the limit counts for the limit: only its headers are fetched). */
function fetchBatches(uids: number[], sizes: Map<number, number>, maxMessageBytes: number): number[][] {
  let batch: number[] = []
  let batchBytes = 0
  const batches: number[][] = []
  for (const uid of uids) {
    const size = sizes.get(uid) ?? 0
    if (batch.length > 0 && batchBytes + Math.min(size, maxMessageBytes) > FETCH_BATCH_BYTES) {
      batches.push(batch)
      batch = []
      batchBytes = 0
    }
    batch.push(uid)
    batchBytes += Math.min(size, maxMessageBytes)
  }
  if (batch.length > 0) batches.push(batch)
  return batches
}

/** Stores one fetched message, then flags it \Seen: unseen until stored, so a crash loses nothing. */
async function storeAndFlag(
  cycle: Cycle,
  session: MailboxSession,
  uid: number,
  source: Buffer,
  size: number,
  headersOnly: boolean,
): Promise<void> {
  const { deps, report } = cycle
  // The test-only broken build (ATLAS_COLLECT_FAULT): \Seen first, so a crash before the insert loses the mail.
  const seenFirst = deps.config.fault === 'seen_before_insert' ? await session.markSeen(uid) : null
  await cycle.checkpoint('before_insert')
  const { stored, files } = await ingestSource(deps.db, source, {
    config: deps.config,
    actor: cycle.actor,
    dir: join(cycle.cycleDir, `uid-${uid}`),
    mailbox: session.mailbox,
    uidValidity: session.uidValidity,
    uid,
    size,
    headersOnly,
    resolver: cycle.resolver,
  })
  await cycle.checkpoint('after_insert')
  if (stored.outcome === 'ingested') report.ingested += 1
  else if (stored.outcome === 'quarantined') report.quarantined += 1
  else report.duplicates += 1
  const seen = seenFirst ?? (await session.markSeen(uid))
  if (!seen) {
    report.seenNotConfirmed += 1
    deps.log(
      `[atlas-collect] the server did not confirm \\Seen on UID ${uid}: it will be seen again next cycle and recognised as already stored`,
    )
  }
  await cycle.checkpoint('after_seen')
  if (stored.status === 'received' || stored.status === 'classification_failed') {
    cycle.items.set(stored.inboxId, { inboxId: stored.inboxId, files })
  }
}

/** Fetches one batch (sources, or header blocks for the oversized), stores and flags each message. */
async function ingestBatch(cycle: Cycle, session: MailboxSession, batch: number[], sizes: Map<number, number>): Promise<void> {
  const { deps } = cycle
  const maxBytes = deps.config.limits.maxMessageBytes
  const small = batch.filter(uid => (sizes.get(uid) ?? 0) <= maxBytes)
  const large = batch.filter(uid => (sizes.get(uid) ?? 0) > maxBytes)
  const sources = await session.sources(small)
  const headers = large.length > 0 ? await session.headerBlocks(large) : new Map<number, Buffer>()
  await cycle.checkpoint('after_fetch')
  let highest = 0
  for (const uid of batch) {
    if (deps.signal?.aborted) break
    const headersOnly = large.includes(uid)
    const source = headersOnly ? headers.get(uid) ?? Buffer.alloc(0) : sources.get(uid)
    if (!source) {
      deps.log(`[atlas-collect] UID ${uid} vanished before it could be fetched (expunged meanwhile?)`)
      continue
    }
    await storeAndFlag(cycle, session, uid, source, sizes.get(uid) ?? 0, headersOnly)
    highest = Math.max(highest, uid)
  }
  if (highest > 0) await deps.db.execute(sql`update atlas_mailbox_state set last_uid = greatest(last_uid, ${highest}) where mailbox = ${session.mailbox}`)
}

/** Earlier messages still to process whose attachments must be fetched again (by UID, same mailbox and UIDVALIDITY). */
async function refetchPending(cycle: Cycle, session: MailboxSession, pending: PendingRow[]): Promise<void> {
  const refetch = pending.filter(
    p =>
      !cycle.items.has(p.inboxId)
      && p.attachments > 0
      && p.mailbox === session.mailbox
      && p.uidValidity === session.uidValidity
      && p.uid !== null,
  )
  if (refetch.length === 0) return
  const sources = await session.sources(refetch.map(p => p.uid!))
  for (const entry of refetch) {
    const source = sources.get(entry.uid!)
    if (!source) continue
    const again = await parseInto(source, join(cycle.cycleDir, `again-${entry.inboxId}`), cycle.deps.config)
    if (!again.quarantine) {
      cycle.items.set(entry.inboxId, { inboxId: entry.inboxId, files: filesOf(again.parsed) })
      cycle.report.refetched += 1
    }
  }
}

/** The IMAP session's work: count the unseen, then (unless a dry run) ingest them and refetch the pending. */
export async function readMailbox(cycle: Cycle, session: MailboxSession, pending: PendingRow[], dryRun: boolean): Promise<void> {
  const { deps, report } = cycle
  report.mailbox = session.mailbox
  report.uidValidity = session.uidValidity
  const unseen = await session.unseenUids()
  report.unseen = unseen.length
  if (dryRun) return
  report.uidValidityChanged = await trackUidValidity(deps, session, cycle.actor)
  const uids = unseen.slice(0, deps.config.limits.maxMessagesPerCycle)
  const sizes = await session.sizes(uids)
  for (const batch of fetchBatches(uids, sizes, deps.config.limits.maxMessageBytes)) {
    await ingestBatch(cycle, session, batch, sizes)
  }
  await refetchPending(cycle, session, pending)
}
