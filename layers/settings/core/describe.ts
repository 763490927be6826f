// Each connection as configured, read through the same readers the code that uses it reads
// (atlas's config and mailer, the AI facade's provider registry, the spawn's config). A secret
// shows only as "set" or "not set"; a configuration error shows as its message (it names the
// variable, never a secret's value: the caller scrubs it all the same).
import { readAtlasConfig, type AtlasConfig, type AtlasEnv } from '#layers/atlas/core/config'
import { readMailConfig, type MailConfig } from '#layers/atlas/core/mail/mailer'
import { COMPLETION_DEFAULT_MODELS, EMBEDDING_DEFAULT_MODELS } from '#layers/ai/core/catalog'
import { openAiCompatModels } from '#layers/ai/core/env'
import type { ProviderStatus } from '#layers/ai/core/providers'
import { readSpawnConfig, type SpawnConfig } from '#layers/spawn/core/config'
import { findBinary } from '#layers/spawn/core/wrapper-args'
import { MODEL_CONNECTIONS, type ConnectionField, type ConnectionView, type ModelConnection } from './schemas'

const SET = (value: string | undefined) => (value?.trim() ? 'set' : 'not set')

type Read<T> = { value: T, error?: undefined } | { value?: undefined, error: string }

function read<T>(reader: () => T): Read<T> {
  try {
    return { value: reader() }
  }
  catch (error) {
    return { error: (error as Error).message }
  }
}

function field(label: string, value: string | number | boolean | null | undefined, variable: string): ConnectionField {
  const text = value === null || value === undefined || value === '' ? '—' : typeof value === 'boolean' ? (value ? 'yes' : 'no') : String(value)
  return { label, value: text, variable }
}

function imap(env: AtlasEnv, atlas: Read<AtlasConfig>): ConnectionView {
  const base = { name: 'imap' as const, label: 'Mailbox (IMAP)', kind: 'mail' as const }
  const config = atlas.value?.imap
  const fields = [
    field('Host', config?.host ?? env.ATLAS_IMAP_HOST, 'ATLAS_IMAP_HOST'),
    field('Port', config?.port ?? env.ATLAS_IMAP_PORT, 'ATLAS_IMAP_PORT'),
    field('TLS', config?.secure ?? env.ATLAS_IMAP_SECURE, 'ATLAS_IMAP_SECURE'),
    field('User', config?.user ?? env.ATLAS_IMAP_USER, 'ATLAS_IMAP_USER'),
    field('Password', SET(env.ATLAS_IMAP_PASSWORD), 'ATLAS_IMAP_PASSWORD'),
    field('Folder', config?.mailbox ?? env.ATLAS_IMAP_MAILBOX ?? 'INBOX', 'ATLAS_IMAP_MAILBOX'),
  ]
  if (atlas.error) return { ...base, configured: false, testable: false, fields, note: atlas.error }
  if (!config) return { ...base, configured: false, testable: false, fields, note: 'ATLAS_IMAP_HOST is not set: mail arrives only through the drop folder.' }
  return { ...base, configured: true, testable: true, fields, note: '' }
}

function smtp(env: AtlasEnv, mail: Read<MailConfig>): ConnectionView {
  const base = { name: 'smtp' as const, label: 'Outbound mail (SMTP)', kind: 'mail' as const }
  const config = mail.value?.smtp
  const fields = [
    field('Host', config?.host ?? env.ATLAS_SMTP_HOST, 'ATLAS_SMTP_HOST'),
    field('Port', config?.port ?? env.ATLAS_SMTP_PORT, 'ATLAS_SMTP_PORT'),
    field('TLS', config?.secure ?? env.ATLAS_SMTP_SECURE, 'ATLAS_SMTP_SECURE'),
    field('User', config?.user ?? env.ATLAS_SMTP_USER, 'ATLAS_SMTP_USER'),
    field('Password', SET(env.ATLAS_SMTP_PASSWORD), 'ATLAS_SMTP_PASSWORD'),
    field('From', mail.value?.from, 'ATLAS_SMTP_FROM'),
    field('Team', mail.value ? `${mail.value.team.length} address${mail.value.team.length === 1 ? '' : 'es'}` : null, 'INTERNAL_TEAM_EMAILS'),
  ]
  if (mail.error) return { ...base, configured: false, testable: false, fields, note: mail.error }
  if (!config) return { ...base, configured: false, testable: false, fields, note: 'ATLAS_SMTP_HOST is not set: alerts and notifications are not mailed.' }
  return { ...base, configured: true, testable: true, fields, note: '' }
}

function clamav(env: AtlasEnv, atlas: Read<AtlasConfig>): ConnectionView {
  const base = { name: 'clamav' as const, label: 'Antivirus (ClamAV)', kind: 'scan' as const }
  const scanner = atlas.value?.scanner
  const fields = [
    field('clamd host', scanner?.clamd?.host ?? env.CLAMD_HOST, 'CLAMD_HOST'),
    field('clamd port', scanner?.clamd?.port ?? env.CLAMD_PORT, 'CLAMD_PORT'),
    field('clamscan command', scanner?.clamscanBin ?? env.CLAMSCAN_BIN, 'CLAMSCAN_BIN'),
    field('Scan deadline (ms)', scanner?.timeoutMs ?? env.ATLAS_SCAN_TIMEOUT_MS, 'ATLAS_SCAN_TIMEOUT_MS'),
  ]
  if (atlas.error) return { ...base, configured: false, testable: false, fields, note: atlas.error }
  if (!scanner?.clamd) return { ...base, configured: true, testable: false, fields, note: 'CLAMD_HOST is not set: each attachment is scanned by the clamscan command (slower); set it to use the clamd daemon, which the test reaches.' }
  return { ...base, configured: true, testable: true, fields, note: '' }
}

function ocr(env: AtlasEnv, atlas: Read<AtlasConfig>): ConnectionView {
  const base = { name: 'ocr' as const, label: 'OCR (tesseract)', kind: 'scan' as const }
  const config = atlas.value?.ocr
  const fields = [
    field('Enabled', config?.enabled ?? env.ATLAS_OCR_ENABLED, 'ATLAS_OCR_ENABLED'),
    field('Images per message', config?.maxImages ?? env.ATLAS_OCR_MAX_IMAGES, 'ATLAS_OCR_MAX_IMAGES'),
  ]
  if (atlas.error) return { ...base, configured: false, testable: false, fields, note: atlas.error }
  // tesseract.js runs inside the collector with its language data on disk: nothing to reach.
  return { ...base, configured: config?.enabled ?? false, testable: false, fields, note: config?.enabled ? 'Runs inside the collector (tesseract.js, language data on disk): nothing to connect to.' : 'ATLAS_OCR_ENABLED is off: image attachments are not read.' }
}

/** The model a connection test asks for: the provider's default completion (or embedding) model. */
export function testModel(env: AtlasEnv, provider: ModelConnection): string | undefined {
  if (provider === 'voyage') return EMBEDDING_DEFAULT_MODELS.voyage
  if (provider === 'openai-compat') return openAiCompatModels(env).chat
  return COMPLETION_DEFAULT_MODELS[provider]
}

function model(env: AtlasEnv, status: ProviderStatus | undefined, provider: ModelConnection): ConnectionView {
  const base = { name: provider, label: status?.label ?? provider, kind: 'model' as const }
  const fields = [
    field('Key', status?.keyEnv ? SET(env[status.keyEnv]) : 'none needed', status?.keyEnv ?? ''),
    field('Base URL', status?.baseUrl, status?.baseUrlEnv ?? ''),
    field('Model tested', testModel(env, provider), provider === 'openai-compat' ? 'OPENAI_COMPAT_MODEL' : ''),
    field('Via', status?.via, provider === 'anthropic' ? 'AI_AGENT_CLI' : ''),
  ]
  const configured = status?.configured ?? false
  const note = configured ? (status?.note ?? '') : (status?.note || 'not configured')
  // The agent CLI stand-in for Anthropic is tested as the agent CLI; openai-compat needs a model name.
  const testable = configured && status?.via === 'api' && testModel(env, provider) !== undefined
  return { ...base, configured, testable, fields, note: configured && !testable && provider === 'openai-compat' ? 'OPENAI_COMPAT_MODEL is not set: no model to test.' : note }
}

function agentCli(env: AtlasEnv, spawn: Read<SpawnConfig>): ConnectionView {
  const base = { name: 'agent-cli' as const, label: 'Agent CLI (claude)', kind: 'agent' as const }
  const config = spawn.value
  const found = config ? findBinary(config.agentBin, env) : null
  const fields = [
    field('Command', config?.agentBin ?? env.SPAWN_AGENT_BIN ?? 'claude', 'SPAWN_AGENT_BIN'),
    field('Found at', found ?? 'not found', 'PATH'),
    field('Sandbox', config?.sandbox ?? env.SPAWN_SANDBOX, 'SPAWN_SANDBOX'),
    field('Model', config?.model ?? env.SPAWN_MODEL, 'SPAWN_MODEL'),
    field('Credential', config ? `${config.credentialEnv} ${SET(env[config.credentialEnv])}` : null, 'SPAWN_AGENT_CREDENTIAL'),
    field('Kill switch', config?.disabled ?? env.ATLAS_SPAWN_DISABLED, 'ATLAS_SPAWN_DISABLED'),
  ]
  if (spawn.error) return { ...base, configured: false, testable: false, fields, note: spawn.error }
  if (!found) return { ...base, configured: false, testable: false, fields, note: `"${config!.agentBin}" is not on PATH: set SPAWN_AGENT_BIN to the claude binary's path.` }
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
