// Feature 2, session compaction: the day's spawn transcripts (at most 30; any containing a
// secret by pattern is skipped whole, never sent to a model) → 3 to 5 durable facts
// (decision, delivery, scar, finding) into the day's journal, a draft in the vault inbox.
// A dry-run counts the transcripts and calls no model.
import { z } from 'zod'
import { asc, inArray, sql } from 'drizzle-orm'
import { atlasSpawnEventsBase } from '#db/schema/atlas-spawn'
import { writeInboxNote } from '#layers/memory/core/vault/inbox'
import { createScrubber } from '../scrub'
import { clip, eventText } from '../debrief/bundle'
import { daysBefore, type NightlyFeature } from './context'
import { promptFile } from '#layers/ai/core/prompts/file'

export const SESSION_COMPACTION_KEY = 'nightly_session_compaction'
export const COMPACTION_MAX_TRANSCRIPTS = 30
const TRANSCRIPT_MAX_CHARS = 4_000

export const CompactionAnswer = z.object({
  facts: z.array(z.object({ kind: z.enum(['decision', 'delivery', 'scar', 'finding']), text: z.string().trim().min(1).max(500) })).min(3).max(5),
})

const SYSTEM = promptFile(new URL('./session-compaction.system.md', import.meta.url))

/** A secret by pattern: an API token, a bearer header or a key=value credential (the scrubber's token kind). */
export function containsSecret(text: string): boolean {
  return (createScrubber()(text).found.token ?? 0) > 0
}

export const sessionCompaction: NightlyFeature = {
  name: 'session-compaction',
  routingKey: SESSION_COMPACTION_KEY,
  async run(ctx) {
    const since = daysBefore(ctx.now, 1)
    const spawns = await ctx.db.execute<{ id: string, agent: string | null }>(sql`
      select id::text as id, agent_codename as agent from atlas_spawns
      where ended_at >= ${since.toISOString()} and ended_at < ${ctx.now.toISOString()}
      order by ended_at, id limit ${COMPACTION_MAX_TRANSCRIPTS}`)
    const ids = spawns.map(s => s.id)
    const events
      = ids.length === 0
        ? []
        : await ctx.db
            .select({
              spawnId: atlasSpawnEventsBase.spawnId,
              type: atlasSpawnEventsBase.eventType,
              tool: atlasSpawnEventsBase.toolName,
              payload: atlasSpawnEventsBase.payload,
            })
            .from(atlasSpawnEventsBase)
            .where(inArray(atlasSpawnEventsBase.spawnId, ids))
            .orderBy(asc(atlasSpawnEventsBase.spawnId), asc(atlasSpawnEventsBase.seq))
    const transcripts = new Map<string, string[]>(ids.map(id => [id, []]))
    for (const event of events) transcripts.get(event.spawnId)?.push(eventText(event.type, event.tool, event.payload))
    // The secret check reads the raw payloads too: eventText clips, a token past the clip still counts.
    const raw = new Map<string, string>(ids.map(id => [id, '']))
    for (const event of events) raw.set(event.spawnId, `${raw.get(event.spawnId)}\n${JSON.stringify(event.payload)}`)
    const skipped = ids.filter(id => containsSecret(raw.get(id)!))
    const kept = ids.filter(id => !skipped.includes(id) && transcripts.get(id)!.length > 0)
    const day = since.toISOString().slice(0, 10)
    const items: Array<Record<string, unknown>> = [...skipped.map(id => ({ spawnId: id, skipped: 'secret' })), ...kept.map(id => ({ spawnId: id }))]
    const counts = { transcripts: ids.length, skippedSecret: skipped.length, compacted: 0, facts: 0 }
    if (ctx.dryRun || kept.length === 0) return { counts, items, drafts: [] }
    const prompt = kept.map(id => `## Session ${id}\n${clip(createScrubber()(transcripts.get(id)!.join('\n')).text, TRANSCRIPT_MAX_CHARS)}`).join('\n\n')
    const answer = await ctx.ai.complete({ feature: SESSION_COMPACTION_KEY, system: SYSTEM, prompt, json: true, actor: 'nightly-consolidation', timeoutMs: 120_000, signal: ctx.signal })
    const parsed = CompactionAnswer.safeParse(answer.data)
    if (!parsed.success) throw new Error(`session compaction: the model's answer is outside the schema (${parsed.error.issues[0]?.message ?? 'invalid'})`)
    const facts = parsed.data.facts.map(f => ({ ...f, text: createScrubber()(f.text).text }))
    const body = [`# Journal ${day}`, '', `Durable facts from ${kept.length} session(s) (nightly consolidation, a draft: a person promotes it).`, '', ...facts.map(f => `- **${f.kind}**: ${f.text}`)].join('\n')
    const path = writeInboxNote(ctx.vaultDir, { name: `daily/${day}.md`, overwrite: true, frontmatter: { type: 'daily-journal', source: 'nightly-consolidation', day, spawns: kept }, body })
    return { counts: { ...counts, compacted: kept.length, facts: facts.length }, items, drafts: [path] }
  },
}
