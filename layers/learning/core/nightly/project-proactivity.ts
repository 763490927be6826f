// Feature 7, project proactivity: each active project of an active tenant whose contacts wrote
// in the last 30 days gets its mail exchange with the tenant linked into threads
// (mail-thread.ts). The thread to watch — the latest one naming the project, else the latest
// naming no other project of the tenant — goes, untrusted-wrapped and bounded, to one model
// call that classifies it: archive, action_required, awaiting_reply or nothing. One
// classification per project and night in learn_project_threads (a re-run the same night
// classifies nothing again); the action_required ones go into the morning mail. An answer
// outside the schema, or the model down, is reported for that project and stores nothing;
// the others go on. A dry-run links and counts, and calls no model.
import { z } from 'zod'
import { and, eq, inArray, sql } from 'drizzle-orm'
import { clients } from '#db/schema/clients'
import { learnProjectThreads, PROACTIVITY_VERDICTS } from '#db/schema/proactivity'
import { untrustedBlock, untrustedLine, untrustedMarkers } from '#layers/spawn/core/untrusted'
import { daysBefore, type NightlyContext, type NightlyFeature } from './context'
import { linkThreads, normaliseSubject, type MailThread, type SentReply, type ThreadMail } from './mail-thread'
import { promptFile } from '#layers/ai/core/prompts/file'

export const PROJECT_PROACTIVITY_KEY = 'nightly_project_proactivity'
/** A tenant's contacts are active when one of them wrote in this many days; the thread reads this window. */
export const PROACTIVITY_WINDOW_DAYS = 30
/** The thread sent to the model: its latest entries, each body cut, the whole bounded. */
export const THREAD_MAX_ENTRIES = 20
const BODY_MAX = 1_200
const THREAD_MAX_CHARS = 12_000
const REASON_MAX = 300

export const ProactivityAnswer = z.object({
  verdict: z.enum(PROACTIVITY_VERDICTS),
  reason: z.string().trim().max(2_000).default(''),
})

const SYSTEM = promptFile(new URL('./project-proactivity.system.md', import.meta.url))

/** tenantSlug: the tenant the model call is made for (its clients.config.ai, its ledger rows). */
interface Project { id: string, name: string, tenantId: string, tenantSlug: string, tenantName: string }

async function watchedProjects(ctx: NightlyContext, since: Date): Promise<Project[]> {
  const rows = await ctx.db.execute<{ id: string, name: string, tenant_id: string, tenant_slug: string, tenant_name: string }>(sql`
    select p.id, p.name, p.tenant_id, c.slug as tenant_slug, c.name as tenant_name from work_projects p join clients c on c.id = p.tenant_id
    where p.status = 'active' and c.active
      and exists (select 1 from atlas_inbox i join atlas_messages m on m.id = i.message_id where i.tenant_id = p.tenant_id and m.received_at >= ${since.toISOString()} and m.received_at < ${ctx.now.toISOString()})
    order by c.name, p.name, p.id`)
  return rows.map(r => ({ id: r.id, name: r.name, tenantId: r.tenant_id, tenantSlug: r.tenant_slug, tenantName: r.tenant_name }))
}

type MessageRow = {
  id: string
  message_id: string | null
  in_reply_to: string | null
  thread_references: string[] | null
  subject: string
  from_address: string | null
  at: string | Date
  text_body: string
}
const toMail
  = (direction: ThreadMail['direction']) =>
    (r: MessageRow): ThreadMail => ({
      id: Number(r.id),
      direction,
      messageId: r.message_id,
      inReplyTo: r.in_reply_to,
      references: r.thread_references ?? [],
      subject: r.subject,
      from: r.from_address,
      at: new Date(r.at),
      body: r.text_body,
    })

/** The tenant's mails of the window: inbound (the inbox tied them to it), the team's copies to its addresses, the replies marked sent. */
async function tenantThreads(ctx: NightlyContext, tenantId: string, since: Date): Promise<MailThread[]> {
  const window = sql`m.received_at >= ${since.toISOString()} and m.received_at < ${ctx.now.toISOString()}`
  const columns = sql`m.id::text as id, m.message_id, m.in_reply_to, m.thread_references, m.subject, m.from_address, coalesce(m.sent_at, m.received_at) as at, m.text_body`
  const inbound = (await ctx.db.execute<MessageRow>(sql`select ${columns} from atlas_messages m join atlas_inbox i on i.message_id = m.id where i.tenant_id = ${tenantId} and ${window}`)).map(toMail('inbound'))
  const [tenant] = await ctx.db
    .select({ domains: clients.domains, contacts: clients.contacts })
    .from(clients)
    .where(eq(clients.id, tenantId))
  const domains = (tenant?.domains ?? []).map(d => d.trim().toLowerCase()).filter(Boolean)
  const emails = (tenant?.contacts ?? []).map(c => c.email?.trim().toLowerCase()).filter((e): e is string => Boolean(e))
  const matches = [
    ...(domains.length > 0 ? [sql`lower(split_part(a.addr, '@', 2)) in (${sql.join(domains.map(d => sql`${d}`), sql`, `)})`] : []),
    ...(emails.length > 0 ? [sql`lower(a.addr) in (${sql.join(emails.map(e => sql`${e}`), sql`, `)})`] : []),
  ]
  const outbound = matches.length === 0
    ? []
    : (await ctx.db.execute<MessageRow>(sql`
        select ${columns} from atlas_messages m
        where ${window} and not exists (select 1 from atlas_inbox i where i.message_id = m.id and i.tenant_id = ${tenantId})
          and exists (select 1 from unnest(m.to_addresses || m.cc_addresses) as a(addr) where ${sql.join(matches, sql` or `)})`)).map(toMail('outbound'))
  const inboundIds = inbound.map(m => m.id)
  const replies: SentReply[] = inboundIds.length === 0
    ? []
    : (await ctx.db.execute<{ id: string, message_id: string, sent_at: string | Date, sent_by: string | null, body: string }>(sql`
        select id::text as id, message_id::text as message_id, sent_at, sent_by, body from atlas_reply_drafts
        where status = 'sent' and sent_at is not null and message_id in (${sql.join(inboundIds.map(id => sql`${id}`), sql`, `)})`))
        .map(r => ({ id: Number(r.id), answers: Number(r.message_id), at: new Date(r.sent_at), by: r.sent_by, body: r.body }))
  return linkThreads([...inbound, ...outbound], replies)
}

/** The latest thread whose subject names the project, else the latest one naming none of the tenant's other projects. */
function watchedThread(threads: MailThread[], project: Project, siblings: Project[]): MailThread | undefined {
  const names = (t: MailThread, p: Project) => {
    const name = normaliseSubject(p.name)
    return name.length > 0 && t.mails.some(m => normaliseSubject(m.subject).includes(name))
  }
  const others = siblings.filter(p => p.id !== project.id)
  return threads.find(t => names(t, project)) ?? threads.find(t => !others.some(p => names(t, p)))
}

export function threadPrompt(project: Project, thread: MailThread, nonce?: string): string {
  const markers = untrustedMarkers(nonce)
  const line = (value: string, max: number) => untrustedLine(value, max, markers.nonce)
  const entries = [
    ...thread.mails.map(m => ({ at: m.at, text: `[${m.direction === 'inbound' ? 'from the client' : 'from the studio'}] ${m.at.toISOString().slice(0, 16)} ${line(m.from ?? 'unknown sender', 200)} — subject: ${line(m.subject, 200)}\n  ${line(m.body, BODY_MAX)}` })),
    ...thread.replies.map(r => ({ at: r.at, text: `[from the studio, reply sent] ${r.at.toISOString().slice(0, 16)}\n  ${line(r.body, BODY_MAX)}` })),
  ].sort((a, b) => a.at.getTime() - b.at.getTime()).slice(-THREAD_MAX_ENTRIES)
  const kept: string[] = []
  let size = 0
  for (const entry of [...entries].reverse()) {
    if (size + entry.text.length > THREAD_MAX_CHARS) break
    kept.unshift(entry.text)
    size += entry.text.length
  }
  return [`Project "${line(project.name, 200)}" for the client ${line(project.tenantName, 200)}. The thread, oldest first (${kept.length} of ${thread.mails.length + thread.replies.length} entries):`, '', ...untrustedBlock(markers, 'the mails of the thread', kept), '', 'Answer the JSON object now.'].join('\n')
}

export const projectProactivity: NightlyFeature = {
  name: 'project-proactivity',
  routingKey: PROJECT_PROACTIVITY_KEY,
  async run(ctx) {
    const since = daysBefore(ctx.now, PROACTIVITY_WINDOW_DAYS)
    const day = ctx.now.toISOString().slice(0, 10)
    const projects = await watchedProjects(ctx, since)
    const counts = { projects: projects.length, classified: 0, alreadyClassified: 0, actionRequired: 0, noThread: 0, failed: 0 }
    const items: Array<Record<string, unknown>> = []
    const done = projects.length === 0
      ? []
      : await ctx.db.select({ projectId: learnProjectThreads.projectId, verdict: learnProjectThreads.verdict }).from(learnProjectThreads)
          .where(and(eq(learnProjectThreads.day, day), inArray(learnProjectThreads.projectId, projects.map(p => p.id))))
    const threadsByTenant = new Map<string, MailThread[]>()
    for (const project of projects) {
      const base = { projectId: project.id, project: project.name, tenant: project.tenantName }
      const stored = done.find(d => d.projectId === project.id)
      if (stored) {
        counts.alreadyClassified++
        items.push({ ...base, verdict: stored.verdict, already: true })
        continue
      }
      if (!threadsByTenant.has(project.tenantId)) threadsByTenant.set(project.tenantId, await tenantThreads(ctx, project.tenantId, since))
      const thread = watchedThread(threadsByTenant.get(project.tenantId)!, project, projects.filter(p => p.tenantId === project.tenantId))
      if (!thread) {
        counts.noThread++
        continue
      }
      const linked = { ...base, subject: thread.subject, messageIds: thread.mails.map(m => m.id), replyIds: thread.replies.map(r => r.id) }
      if (ctx.dryRun) {
        items.push(linked)
        continue
      }
      try {
        const answer = await ctx.ai.complete({ feature: PROJECT_PROACTIVITY_KEY, system: SYSTEM, prompt: threadPrompt(project, thread), json: true, actor: 'nightly-consolidation', tenant: project.tenantSlug, timeoutMs: 120_000, signal: ctx.signal })
        const parsed = ProactivityAnswer.safeParse(answer.data)
        if (!parsed.success) throw new Error(`the model's answer is outside the schema (${parsed.error.issues[0]?.message ?? 'invalid'})`)
        const reason = parsed.data.reason.replace(/\s+/g, ' ').slice(0, REASON_MAX)
        await ctx.db
          .insert(learnProjectThreads)
          .values({
            projectId: project.id,
            tenantId: project.tenantId,
            day,
            verdict: parsed.data.verdict,
            reason,
            messageIds: linked.messageIds,
            replyIds: linked.replyIds,
            subject: thread.subject,
            lastMessageAt: thread.lastAt,
          })
          .onConflictDoNothing()
        counts.classified++
        if (parsed.data.verdict === 'action_required') counts.actionRequired++
        items.push({ ...linked, verdict: parsed.data.verdict, reason })
      }
      catch (error) {
        counts.failed++
        ctx.log(`project-proactivity: ${project.name}: ${(error as Error).message}`)
        items.push({ ...linked, error: (error as Error).message })
      }
    }
    return { counts, items, drafts: [] }
  },
}
