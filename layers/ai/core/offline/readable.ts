// The offline provider's answer from tool results (issue 36, Deliver 6): what the tools found as
// a person reads it — titles, dates, who, status and the hub link of each hit — never the
// results' JSON. An empty search says so with its words ("Nothing found in the inbox for
// «invoice»."); a refused or failed call says it could not look. The notice that no model is
// configured (and where to set one) is said once per conversation, not at every turn.
import type { ChatMessage } from '../clients/types'
import { whereOf } from './intent'

type ToolResult = Extract<ChatMessage, { role: 'tool' }>

export const NO_MODEL_NOTICE = 'No AI model is configured, so I searched with simple rules instead of understanding your question: set a model on the AI page (/hub/ai) for real answers.'
/** Hits listed per tool; the rest is counted. */
const SHOWN = 8

const TITLE_KEYS = ['title', 'subject', 'name', 'path', 'codename'] as const
const DATE_KEYS = ['receivedAt', 'createdAt', 'updatedAt', 'lastAt', 'at'] as const

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.replace(/\s+/g, ' ').trim() : typeof value === 'number' ? String(value) : null
}
const clip = (value: string, max: number) => (value.length > max ? `${value.slice(0, max - 1)}…` : value)

/** "2026-12-05 09:40 UTC" from an ISO date; anything else as it is. */
function day(value: string): string {
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? value : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`
}

/** One hit as a line: its title (quoted), date, sender, kind and status, snippet, then its link. */
export function hitLine(hit: Record<string, unknown>): string {
  const title = TITLE_KEYS.map(key => text(hit[key])).find(Boolean) ?? (hit.id !== undefined ? `#${String(hit.id)}` : 'untitled')
  const date = DATE_KEYS.map(key => text(hit[key])).find(Boolean)
  const facts = [
    date ? day(date) : null,
    text(hit.from) ? `from ${text(hit.from)}` : null,
    text(hit.entity) ?? text(hit.sourceType),
    text(hit.status),
    text(hit.project) ? `project ${text(hit.project)}` : null,
    text(hit.intent),
  ].filter(Boolean)
  const snippet = text(hit.snippet) ?? text(hit.body)
  const link = text(hit.link)
  return [`- «${clip(title, 160)}»`, facts.length ? ` — ${facts.join(', ')}` : '', snippet ? `: ${clip(snippet, 240)}` : '', link ? ` (${link})` : ''].join('')
}

/** The readable lines of one tool result; `query` is what the call searched for. */
export function resultLines(result: ToolResult, query: string | null): string[] {
  const where = whereOf(result.name)
  if (result.isError) return [`I could not look in ${where}: ${clip(result.content.replace(/^(Error|Refused): /, ''), 300)}`]
  let value: unknown
  try {
    value = JSON.parse(result.content)
  }
  catch {
    // A tool that answered in words: its words, in one paragraph.
    return [`From ${where}: ${clip(result.content.replace(/\s+/g, ' ').trim(), 600)}`]
  }
  const hits = Array.isArray(value) ? value : [value]
  const records = hits.filter((hit): hit is Record<string, unknown> => typeof hit === 'object' && hit !== null)
  if (records.length === 0) {
    if (hits.length > 0) return [`From ${where}: ${clip(hits.map(hit => String(hit)).join(', '), 600)}`]
    return [query ? `Nothing found in ${where} for «${clip(query, 120)}».` : `Nothing found in ${where}.`]
  }
  const more = records.length > SHOWN ? [`…and ${records.length - SHOWN} more.`] : []
  const heading = Array.isArray(value) ? `In ${where}${query ? ` for «${clip(query, 120)}»` : ''}, ${records.length} found:` : `From ${where}:`
  return [heading, ...records.slice(0, SHOWN).map(hitLine), ...more]
}

/** The query each call of the conversation searched for, by call id. */
function queriesOf(messages: ChatMessage[]): Map<string, string> {
  const queries = new Map<string, string>()
  for (const message of messages) {
    if (message.role !== 'assistant' || !message.toolCalls) continue
    for (const call of message.toolCalls) {
      const query = (call.input as { query?: unknown } | null)?.query
      if (typeof query === 'string') queries.set(call.id, query.trim())
    }
  }
  return queries
}

/**
 * The whole answer: `[offline]`, the notice unless the conversation already heard it, then
 * each tool's findings in the order they were called.
 */
export function readableAnswer(messages: ChatMessage[], system: string | undefined): string {
  const told = (system ?? '').includes(NO_MODEL_NOTICE)
  const results = messages.filter((message): message is ToolResult => message.role === 'tool')
  const queries = queriesOf(messages)
  const found = results.length > 0
    ? results.flatMap(result => resultLines(result, queries.get(result.toolCallId) ?? null))
    : ['None of my search tools is available to this agent: nothing was looked up.']
  return ['[offline]', ...(told ? [] : [NO_MODEL_NOTICE]), ...found].join('\n')
}
