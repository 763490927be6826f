// The settings layer's shapes, shared by its routes and its pages.
import { z } from 'zod'
import { MessageValues } from '#layers/base/core/message-values'

/** The model providers a test can call (the offline one connects to nothing). */
export const MODEL_CONNECTIONS = ['mistral', 'anthropic', 'openai', 'voyage', 'openai-compat'] as const
export type ModelConnection = typeof MODEL_CONNECTIONS[number]

export const CONNECTION_NAMES = ['imap', 'smtp', 'clamav', 'ocr', ...MODEL_CONNECTIONS, 'agent-cli'] as const
export const ConnectionName = z.enum(CONNECTION_NAMES)
export type ConnectionName = z.infer<typeof ConnectionName>

/** The route parameter of POST /api/settings/connections/:name/test. */
export const ConnectionParams = z.object({ name: ConnectionName })

// The words are the server's English, for any client; beside them, for a page in another
// language: a `*Key` is the message's key in the hub's catalogs (settings.connections.… or,
// for a model provider's note, the AI page's ai.providers.notes.…) with its `*Values`, and a
// field's `key` names its label at settings.connections.fields.<key>. A text without a key (a
// configuration error's message, a host, a path) is shown as written.

/** One line of a connection's configuration: a secret shows only as "set" or "not set". */
export const ConnectionField = z.object({
  key: z.string(),
  label: z.string(),
  value: z.string(),
  valueKey: z.string().optional(),
  valueValues: MessageValues.optional(),
  /** The variable it is read from. */
  variable: z.string(),
})
export type ConnectionField = z.infer<typeof ConnectionField>

export const ConnectionView = z.object({
  name: ConnectionName,
  label: z.string(),
  labelKey: z.string().optional(),
  kind: z.enum(['mail', 'scan', 'model', 'agent']),
  configured: z.boolean(),
  /** Whether a test can run (an unconfigured connection, or one with nothing to reach, cannot). */
  testable: z.boolean(),
  fields: z.array(ConnectionField),
  /** What is missing or wrong, in words, when not configured. */
  note: z.string(),
  noteKey: z.string().optional(),
  noteValues: MessageValues.optional(),
})
export type ConnectionView = z.infer<typeof ConnectionView>
export type ConnectionKind = ConnectionView['kind']

export interface ConnectionTestResult {
  name: ConnectionName
  ok: boolean
  /** What happened, in words; never a secret. */
  detail: string
  elapsedMs: number
}

export const CHECKLIST_ITEMS = ['founder', 'client', 'mailbox', 'model', 'agent-cli', 'first-mail'] as const
export type ChecklistItemId = typeof CHECKLIST_ITEMS[number]

// As a connection's: the English for any client, a key (settings.checklist.…) and its values
// beside it for a page in another language; a detail without a key (a path, the providers'
// names) is shown as written.
export const ChecklistItem = z.object({
  id: z.enum(CHECKLIST_ITEMS),
  label: z.string(),
  labelKey: z.string(),
  done: z.boolean(),
  /** Where it is fixed in the hub. */
  to: z.string(),
  /** What is there, or what is missing. */
  detail: z.string(),
  detailKey: z.string().optional(),
  detailValues: MessageValues.optional(),
})
export type ChecklistItem = z.infer<typeof ChecklistItem>

export const Checklist = z.object({
  items: z.array(ChecklistItem),
  done: z.boolean(),
})
export type Checklist = z.infer<typeof Checklist>

export { MessageValues }
