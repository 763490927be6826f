// One spawn's whole story for its page (issue 15, Deliver 6): the message it answered and its
// tenant, the agent it was routed to, the briefing as sent (the system prompt file the agent
// was started with, and the lessons it carried), the figures, deploy and QA, the spawns of the
// same loop, and the lessons it produced. The events stream from the existing events routes.
import { readFileSync } from 'node:fs'
import { asc, eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasInbox, atlasMessages } from '#db/schema/atlas'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { clients } from '#db/schema/clients'
import { getSpawn, type SpawnSummary } from './queries'
import type { InjectedLesson, ProducedLesson, SpawnLoopRecords, SpawnRouting } from './spawn-loop-records'

/** The briefing shown on the page is cut past this many characters (the file stays whole). */
export const BRIEFING_SHOWN_CHARS = 200_000

export interface SpawnStory {
  spawn: SpawnSummary
  message: { id: number, subject: string, fromAddress: string | null, intent: string | null, status: string | null }
  tenant: { slug: string, name: string } | null
  routing: SpawnRouting
  briefing: {
    /** The system prompt as the agent received it; null when the file is gone or was never written. */
    text: string | null
    truncated: boolean
    unavailable: string | null
    /** The catalog's key and values of `unavailable` (hub.spawn.briefingUnavailable.*). */
    unavailableKey?: string
    unavailableValues?: Record<string, string>
    lessons: InjectedLesson[]
  }
  loop: Array<{ id: string, iteration: number, status: string, outcome: string | null }>
  produced: ProducedLesson[]
}

export interface SpawnStoryDeps {
  db: Db
  /** Where the spawn's system prompt file is (run-agent's spawnPaths). */
  systemPromptFile: (spawnId: string) => string
  records: SpawnLoopRecords
}

type Briefing = Pick<SpawnStory['briefing'], 'text' | 'truncated' | 'unavailable' | 'unavailableKey' | 'unavailableValues'>

function readBriefing(locate: () => string): Briefing {
  try {
    const text = readFileSync(locate(), 'utf8')
    return { text: text.slice(0, BRIEFING_SHOWN_CHARS), truncated: text.length > BRIEFING_SHOWN_CHARS, unavailable: null }
  }
  catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') {
      return { text: null, truncated: false, unavailable: 'the system prompt file is not there (not started yet, or cleaned up)', unavailableKey: 'hub.spawn.briefingUnavailable.missing' }
    }
    const reason = code ?? (error as Error).message
    return { text: null, truncated: false, unavailable: `the system prompt file cannot be read (${reason})`, unavailableKey: 'hub.spawn.briefingUnavailable.unreadable', unavailableValues: { reason } }
  }
}

export async function spawnStory(deps: SpawnStoryDeps, spawnId: string): Promise<SpawnStory | null> {
  const { db } = deps
  const spawn = await getSpawn(db, spawnId)
  if (!spawn) return null
  const [row] = await db
    .select({
      id: atlasMessages.id,
      subject: atlasMessages.subject,
      fromAddress: atlasMessages.fromAddress,
      intent: atlasInbox.intent,
      status: atlasInbox.status,
      tenantSlug: clients.slug,
      tenantName: clients.name,
    })
    .from(atlasMessages)
    .leftJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id))
    .leftJoin(clients, eq(clients.id, atlasInbox.tenantId))
    .where(eq(atlasMessages.id, spawn.messageId))
  const loop = await db
    .select({
      id: atlasSpawns.id,
      iteration: atlasSpawns.iteration,
      status: atlasSpawns.status,
      outcome: atlasSpawns.outcome,
      queuedAt: atlasSpawns.queuedAt,
    })
    .from(atlasSpawns)
    .where(eq(atlasSpawns.messageId, spawn.messageId))
    .orderBy(asc(atlasSpawns.queuedAt))
  const [routing, lessons, produced] = await Promise.all([
    deps.records.routing(spawnId),
    deps.records.injected(spawnId),
    deps.records.produced(spawnId),
  ])
  return {
    spawn,
    message: { id: spawn.messageId, subject: row?.subject ?? '', fromAddress: row?.fromAddress ?? null, intent: row?.intent ?? null, status: row?.status ?? null },
    tenant: row?.tenantSlug ? { slug: row.tenantSlug, name: row.tenantName ?? row.tenantSlug } : null,
    routing,
    briefing: { ...readBriefing(() => deps.systemPromptFile(spawnId)), lessons },
    loop: loop.map(({ queuedAt: _queuedAt, ...step }) => step),
    produced,
  }
}
