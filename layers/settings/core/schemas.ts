// The settings layer's shapes, shared by its routes and its pages.
import { z } from 'zod'

/** The model providers a test can call (the offline one connects to nothing). */
export const MODEL_CONNECTIONS = ['mistral', 'anthropic', 'openai', 'voyage', 'openai-compat'] as const
export type ModelConnection = typeof MODEL_CONNECTIONS[number]

export const CONNECTION_NAMES = ['imap', 'smtp', 'clamav', 'ocr', ...MODEL_CONNECTIONS, 'agent-cli'] as const
export const ConnectionName = z.enum(CONNECTION_NAMES)
export type ConnectionName = z.infer<typeof ConnectionName>

/** The route parameter of POST /api/settings/connections/:name/test. */
export const ConnectionParams = z.object({ name: ConnectionName })

export type ConnectionKind = 'mail' | 'scan' | 'model' | 'agent'

/** One line of a connection's configuration: a secret shows only as "set" or "not set". */
export interface ConnectionField {
  label: string
  value: string
  /** The variable it is read from. */
  variable: string
}

export interface ConnectionView {
  name: ConnectionName
  label: string
  kind: ConnectionKind
  configured: boolean
  /** Whether a test can run (an unconfigured connection, or one with nothing to reach, cannot). */
  testable: boolean
  fields: ConnectionField[]
  /** What is missing or wrong, in words, when not configured. */
  note: string
}

export interface ConnectionTestResult {
  name: ConnectionName
  ok: boolean
  /** What happened, in words; never a secret. */
  detail: string
  elapsedMs: number
}

export const CHECKLIST_ITEMS = ['founder', 'client', 'mailbox', 'model', 'agent-cli', 'first-mail'] as const
export type ChecklistItemId = typeof CHECKLIST_ITEMS[number]

export interface ChecklistItem {
  id: ChecklistItemId
  label: string
  done: boolean
  /** Where it is fixed in the hub. */
  to: string
  /** What is there, or what is missing. */
  detail: string
}

export interface Checklist {
  items: ChecklistItem[]
  done: boolean
}
