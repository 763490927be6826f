// A scar or a victory a person records from a message (issue 15), or from one of its spawns —
// a failed spawn's "Record the scar" (issue 36): the lesson carries the message's tenant, the
// message and the spawn as tags and its source spawn, is audited in the message's trail (so its
// timeline shows it, linked) and re-indexed at once. A spawn of another message is refused.
import { and, eq } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasInbox, atlasMessages } from '#db/schema/atlas'
import { atlasSpawns } from '#db/schema/atlas-spawn'
import { clients } from '#db/schema/clients'
import { recordManualLesson, type ManualLessonKind, type ManualLessonResult } from '#layers/memory/core/lessons-manual'
import type { Embedder } from '#layers/memory/core/vectors/embedder'
import { recordAtlasAudit } from './audit'

export class MessageLessonError extends Error {
  constructor(readonly code: 'not_found' | 'spawn_not_of_message', message: string) {
    super(message)
    this.name = 'MessageLessonError'
  }
}

export interface MessageLessonInput {
  kind: ManualLessonKind
  title: string
  description: string
  checkAdded?: string
  tags?: string[]
  agent?: string | null
  /** The spawn the lesson is about: one of this message's. */
  spawnId?: string | null
  /** The person recording it (their e-mail). */
  actor: string
}

export async function recordMessageLesson(
  deps: { db: Db, embedder: Embedder, log?: (line: string) => void },
  messageId: number,
  input: MessageLessonInput,
): Promise<ManualLessonResult> {
  const { db } = deps
  const [row] = await db
    .select({ id: atlasMessages.id, tenant: clients.slug, tenantId: clients.id })
    .from(atlasMessages)
    .leftJoin(atlasInbox, eq(atlasInbox.messageId, atlasMessages.id))
    .leftJoin(clients, eq(clients.id, atlasInbox.tenantId))
    .where(eq(atlasMessages.id, messageId))
  if (!row) throw new MessageLessonError('not_found', `No Atlas message #${messageId}.`)
  if (input.spawnId) {
    const [spawn] = await db
      .select({ id: atlasSpawns.id })
      .from(atlasSpawns)
      .where(and(eq(atlasSpawns.id, input.spawnId), eq(atlasSpawns.messageId, messageId)))
    if (!spawn)
      throw new MessageLessonError('spawn_not_of_message', `spawnId: spawn ${input.spawnId} is not a spawn of message #${messageId}`)
  }
  const result = await recordManualLesson(deps, {
    ...input,
    agent: input.agent || null,
    spawnId: input.spawnId ?? null,
    tenantId: row.tenantId,
    tenantSlug: row.tenant,
    messageId,
  })
  await recordAtlasAudit(db, {
    messageId,
    action: 'lesson_recorded',
    actor: input.actor,
    details: {
      lessonId: result.lesson.id,
      kind: input.kind,
      title: result.lesson.title,
      indexed: result.index.status,
      spawnId: input.spawnId ?? undefined,
    },
  })
  return result
}
