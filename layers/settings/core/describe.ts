// Each connection as configured, read through the same readers the code that uses it reads
// (atlas's config and mailer, the AI facade's provider registry, the spawn's config). A secret
// shows only as "set" or "not set"; a configuration error shows as its message (it names the
// variable, never a secret's value: the caller scrubs it all the same). Each word written here
// goes out in English with its catalog key beside it (schemas.ts), so the page reads in the
// reader's language while other clients keep the English.
import { readAtlasConfig, type AtlasConfig, type AtlasEnv } from '#layers/atlas/core/config'
import { readMailConfig, type MailConfig } from '#layers/atlas/core/mail/mailer'
import { COMPLETION_DEFAULT_MODELS, EMBEDDING_DEFAULT_MODELS } from '#layers/ai/core/catalog'
import { openAiCompatModels } from '#layers/ai/core/env'
import type { ProviderStatus } from '#layers/ai/core/providers'
import { providerNoteKey } from '#layers/ai/core/seeded-notes'
import { readSpawnConfig, type SpawnConfig } from '#layers/spawn/core/config'
import { findBinary } from '#layers/spawn/core/wrapper-args'
import {
  MODEL_CONNECTIONS,
  type ConnectionField, type ConnectionKind, type ConnectionName, type ConnectionView, type MessageValues, type ModelConnection,
} from './schemas'

/** Each field's label by key (settings.connections.fields.<key>). */
const FIELDS = {
  host: 'Host', port: 'Port', tls: 'TLS', user: 'User', password: 'Password', folder: 'Folder', from: 'From', team: 'Team',
  clamdHost: 'clamd host', clamdPort: 'clamd port', clamscanCommand: 'clamscan command', scanDeadlineMs: 'Scan deadline (ms)',
  enabled: 'Enabled', imagesPerMessage: 'Images per message',
  apiKey: 'Key', baseUrl: 'Base URL', modelTested: 'Model tested', via: 'Via',
  command: 'Command', foundAt: 'Found at', sandbox: 'Sandbox', model: 'Model', credential: 'Credential', killSwitch: 'Kill switch',
} as const
type FieldKey = keyof typeof FIELDS

/** The fixed words a value can be (settings.connections.values.<key>). */
const WORDS = { set: 'set', notSet: 'not set', yes: 'yes', no: 'no', noneNeeded: 'none needed', notFound: 'not found' } as const

/** A value's English with its catalog key. */
interface Keyed { text: string, key: string, values?: MessageValues }

function word(key: keyof typeof WORDS): Keyed {
  return { text: WORDS[key], key: `settings.connections.values.${key}` }
}

const SET = (value: string | undefined) => word(value?.trim() ? 'set' : 'notSet')

function addresses(count: number): Keyed {
  return { text: `${count} address${count === 1 ? '' : 'es'}`, key: `settings.connections.values.${count === 1 ? 'oneAddress' : 'addresses'}`, values: { count } }
}

/** "CLAUDE_CODE_OAUTH_TOKEN set": a credential named by its variable. */
function variableSet(variable: string, value: string | undefined): Keyed {
  const set = SET(value)
  return { text: `${variable} ${set.text}`, key: `settings.connections.values.${value?.trim() ? 'variableSet' : 'variableNotSet'}`, values: { variable } }
}

function note(text: string, key: string, values?: MessageValues): { note: string, noteKey: string, noteValues?: MessageValues } {
  return { note: text, noteKey: `settings.connections.notes.${key}`, ...(values && { noteValues: values }) }
}

function card(name: ConnectionName, label: string, kind: ConnectionKind) {
  return { name, label, labelKey: `settings.connections.cards.${name}`, kind }
}

type Read<T> = { value: T, error?: undefined } | { value?: undefined, error: string }

function read<T>(reader: () => T): Read<T> {
  try {
    return { value: reader() }
  }
  catch (error) {
    return { error: (error as Error).message }
  }
}

function field(key: FieldKey, value: string | number | boolean | Keyed | null | undefined, variable: string): ConnectionField {
  const worded = typeof value === 'boolean' ? word(value ? 'yes' : 'no') : typeof value === 'object' && value !== null ? value : undefined
  const label = FIELDS[key]
  if (worded) return { key, label, value: worded.text, valueKey: worded.key, ...worded.values && { valueValues: worded.values }, variable }
  return { key, label, value: value === null || value === undefined || value === '' ? '—' : String(value), variable }
}

function imap(env: AtlasEnv, atlas: Read<AtlasConfig>): ConnectionView {
  const base = card('imap', 'Mailbox (IMAP)', 'mail')
  const config = atlas.value?.imap
  const fields = [
    field('host', config?.host ?? env.ATLAS_IMAP_HOST, 'ATLAS_IMAP_HOST'),
    field('port', config?.port ?? env.ATLAS_IMAP_PORT, 'ATLAS_IMAP_PORT'),
    field('tls', config?.secure ?? env.ATLAS_IMAP_SECURE, 'ATLAS_IMAP_SECURE'),
    field('user', config?.user ?? env.ATLAS_IMAP_USER, 'ATLAS_IMAP_USER'),
    field('password', SET(env.ATLAS_IMAP_PASSWORD), 'ATLAS_IMAP_PASSWORD'),
    field('folder', config?.mailbox ?? env.ATLAS_IMAP_MAILBOX ?? 'INBOX', 'ATLAS_IMAP_MAILBOX'),
  ]
  if (atlas.error) return { ...base, configured: false, testable: false, fields, note: atlas.error }
  if (!config) return { ...base, configured: false, testable: false, fields, ...note('ATLAS_IMAP_HOST is not set: mail arrives only through the drop folder.', 'imapNoHost') }
  return { ...base, configured: true, testable: true, fields, note: '' }
}

function smtp(env: AtlasEnv, mail: Read<MailConfig>): ConnectionView {
  const base = card('smtp', 'Outbound mail (SMTP)', 'mail')
  const config = mail.value?.smtp
  const fields = [
    field('host', config?.host ?? env.ATLAS_SMTP_HOST, 'ATLAS_SMTP_HOST'),
    field('port', config?.port ?? env.ATLAS_SMTP_PORT, 'ATLAS_SMTP_PORT'),
    field('tls', config?.secure ?? env.ATLAS_SMTP_SECURE, 'ATLAS_SMTP_SECURE'),
    field('user', config?.user ?? env.ATLAS_SMTP_USER, 'ATLAS_SMTP_USER'),
    field('password', SET(env.ATLAS_SMTP_PASSWORD), 'ATLAS_SMTP_PASSWORD'),
    field('from', mail.value?.from, 'ATLAS_SMTP_FROM'),
    field('team', mail.value ? addresses(mail.value.team.length) : null, 'INTERNAL_TEAM_EMAILS'),
  ]
  if (mail.error) return { ...base, configured: false, testable: false, fields, note: mail.error }
  if (!config) return { ...base, configured: false, testable: false, fields, ...note('ATLAS_SMTP_HOST is not set: alerts and notifications are not mailed.', 'smtpNoHost') }
  return { ...base, configured: true, testable: true, fields, note: '' }
}

function clamav(env: AtlasEnv, atlas: Read<AtlasConfig>): ConnectionView {
  const base = card('clamav', 'Antivirus (ClamAV)', 'scan')
  const scanner = atlas.value?.scanner
  const fields = [
    field('clamdHost', scanner?.clamd?.host ?? env.CLAMD_HOST, 'CLAMD_HOST'),
    field('clamdPort', scanner?.clamd?.port ?? env.CLAMD_PORT, 'CLAMD_PORT'),
    field('clamscanCommand', scanner?.clamscanBin ?? env.CLAMSCAN_BIN, 'CLAMSCAN_BIN'),
    field('scanDeadlineMs', scanner?.timeoutMs ?? env.ATLAS_SCAN_TIMEOUT_MS, 'ATLAS_SCAN_TIMEOUT_MS'),
  ]
  if (atlas.error) return { ...base, configured: false, testable: false, fields, note: atlas.error }
  if (!scanner?.clamd) {
    const text = 'CLAMD_HOST is not set: each attachment is scanned by the clamscan command (slower); set it to use the clamd daemon, which the test reaches.'
    return { ...base, configured: true, testable: false, fields, ...note(text, 'clamdNoHost') }
  }
  return { ...base, configured: true, testable: true, fields, note: '' }
}

function ocr(env: AtlasEnv, atlas: Read<AtlasConfig>): ConnectionView {
  const base = card('ocr', 'OCR (tesseract)', 'scan')
  const config = atlas.value?.ocr
  const fields = [
    field('enabled', config?.enabled ?? env.ATLAS_OCR_ENABLED, 'ATLAS_OCR_ENABLED'),
    field('imagesPerMessage', config?.maxImages ?? env.ATLAS_OCR_MAX_IMAGES, 'ATLAS_OCR_MAX_IMAGES'),
  ]
  if (atlas.error) return { ...base, configured: false, testable: false, fields, note: atlas.error }
  // tesseract.js runs inside the collector with its language data on disk: nothing to reach.
  const said = config?.enabled
    ? note('Runs inside the collector (tesseract.js, language data on disk): nothing to connect to.', 'ocrInCollector')
    : note('ATLAS_OCR_ENABLED is off: image attachments are not read.', 'ocrOff')
  return { ...base, configured: config?.enabled ?? false, testable: false, fields, ...said }
}

/** The model a connection test asks for: the provider's default completion (or embedding) model. */
export function testModel(env: AtlasEnv, provider: ModelConnection): string | undefined {
  if (provider === 'voyage') return EMBEDDING_DEFAULT_MODELS.voyage
  if (provider === 'openai-compat') return openAiCompatModels(env).chat
  return COMPLETION_DEFAULT_MODELS[provider]
}

function model(env: AtlasEnv, status: ProviderStatus | undefined, provider: ModelConnection): ConnectionView {
  // The providers' names are brands, but for the self-hosted server's, which says what it is.
  const label = status?.label ?? provider
  const base = provider === 'openai-compat' && status ? card(provider, label, 'model') : { name: provider, label, kind: 'model' as const }
  const fields = [
    field('apiKey', status?.keyEnv ? SET(env[status.keyEnv]) : word('noneNeeded'), status?.keyEnv ?? ''),
    field('baseUrl', status?.baseUrl, status?.baseUrlEnv ?? ''),
    field('modelTested', testModel(env, provider), provider === 'openai-compat' ? 'OPENAI_COMPAT_MODEL' : ''),
    field('via', status?.via, provider === 'anthropic' ? 'AI_AGENT_CLI' : ''),
  ]
  const configured = status?.configured ?? false
  // The agent CLI stand-in for Anthropic is tested as the agent CLI; openai-compat needs a model name.
  const testable = configured && status?.via === 'api' && testModel(env, provider) !== undefined
  return { ...base, configured, testable, fields, ...modelNote(status, provider, configured, testable) }
}

/** The provider's own note (keyed as the AI page keys it), or what keeps it from a test. */
function modelNote(status: ProviderStatus | undefined, provider: ModelConnection, configured: boolean, testable: boolean) {
  if (configured && !testable && provider === 'openai-compat') return note('OPENAI_COMPAT_MODEL is not set: no model to test.', 'noTestModel', { variable: 'OPENAI_COMPAT_MODEL' })
  const text = status?.note ?? ''
  if (!configured && !text) return { note: 'not configured', noteKey: 'settings.connections.notConfigured' }
  const keyed = providerNoteKey(text)
  return keyed ? { note: text, noteKey: keyed.key, noteValues: keyed.values } : { note: text }
}

function agentCli(env: AtlasEnv, spawn: Read<SpawnConfig>): ConnectionView {
  const base = card('agent-cli', 'Agent CLI (claude)', 'agent')
  const config = spawn.value
  const found = config ? findBinary(config.agentBin, env) : null
  const fields = [
    field('command', config?.agentBin ?? env.SPAWN_AGENT_BIN ?? 'claude', 'SPAWN_AGENT_BIN'),
    field('foundAt', found ?? word('notFound'), 'PATH'),
    field('sandbox', config?.sandbox ?? env.SPAWN_SANDBOX, 'SPAWN_SANDBOX'),
    field('model', config?.model ?? env.SPAWN_MODEL, 'SPAWN_MODEL'),
    field('credential', config ? variableSet(config.credentialEnv, env[config.credentialEnv]) : null, 'SPAWN_AGENT_CREDENTIAL'),
    field('killSwitch', config?.disabled ?? env.ATLAS_SPAWN_DISABLED, 'ATLAS_SPAWN_DISABLED'),
  ]
  if (spawn.error) return { ...base, configured: false, testable: false, fields, note: spawn.error }
  if (!found) {
    const binary = config!.agentBin
    return { ...base, configured: false, testable: false, fields, ...note(`"${binary}" is not on PATH: set SPAWN_AGENT_BIN to the claude binary's path.`, 'agentNotOnPath', { binary }) }
  }
  return { ...base, configured: true, testable: true, fields, note: '' }
}

/** Every connection, in the page's order; `providers` is the AI facade's status list. */
export function describeConnections(env: AtlasEnv, providers: ProviderStatus[]): ConnectionView[] {
  const atlas = read(() => readAtlasConfig(env))
  const mail = read(() => readMailConfig(env))
  const spawn = read(() => readSpawnConfig(env))
  return [
    imap(env, atlas),
    smtp(env, mail),
    clamav(env, atlas),
    ocr(env, atlas),
    ...MODEL_CONNECTIONS.map(provider => model(env, providers.find(status => status.provider === provider), provider)),
    agentCli(env, spawn),
  ]
}
