// One test per connection, each reading its configuration with the reader its user reads it
// with, run under a deadline, answered { ok, detail, elapsedMs } in words and scrubbed of every
// secret the environment holds.
import { readAtlasConfig, type AtlasEnv } from '#layers/atlas/core/config'
import { readMailConfig } from '#layers/atlas/core/mail/mailer'
import { providerBaseUrl } from '#layers/ai/core/env'
import type { AiFacade } from '#layers/ai/core/facade'
import { displayUrl } from '#layers/ai/core/redact'
import { readSpawnConfig } from '#layers/spawn/core/config'
import { testModel } from './describe'
import { probeAgentCli } from './probes/agent-cli'
import { probeClamd } from './probes/clamd'
import { probeImap } from './probes/imap'
import { probeModel } from './probes/model'
import { probeSmtp } from './probes/smtp'
import { scrubberFor, timed } from './probes/words'
import { MODEL_CONNECTIONS, type ConnectionName, type ConnectionTestResult, type ModelConnection } from './schemas'

export const NETWORK_DEADLINE_MS = 10_000
/** srt starts a proxy and a sandbox before the CLI: longer than a socket. */
export const CLI_DEADLINE_MS = 30_000

export interface ConnectionTestDeps {
  env: AtlasEnv
  /** The AI facade the hub calls models through (its ledger counts the test). */
  facade: Pick<AiFacade, 'chatWithTools' | 'embed'>
  actor: string
  /** Overrides the deadline (tests). */
  deadlineMs?: number
}

class NotConfigured extends Error {}

function isModel(name: ConnectionName): name is ModelConnection {
  return (MODEL_CONNECTIONS as readonly string[]).includes(name)
}

export async function testConnection(name: ConnectionName, deps: ConnectionTestDeps): Promise<ConnectionTestResult> {
  const { env } = deps
  const scrub = scrubberFor(env, [env.ATLAS_IMAP_PASSWORD, env.ATLAS_SMTP_PASSWORD])
  const deadline = (fallback: number) => deps.deadlineMs ?? fallback
  const probe = async (): Promise<string> => {
    if (name === 'imap') {
      const imap = readAtlasConfig(env).imap
      if (!imap) throw new NotConfigured('ATLAS_IMAP_HOST is not set')
      return await probeImap(imap, deadline(NETWORK_DEADLINE_MS))
    }
    if (name === 'smtp') {
      const smtp = readMailConfig(env).smtp
      if (!smtp) throw new NotConfigured('ATLAS_SMTP_HOST is not set')
      return await probeSmtp(smtp, deadline(NETWORK_DEADLINE_MS))
    }
    if (name === 'clamav') {
      const clamd = readAtlasConfig(env).scanner.clamd
      if (!clamd) throw new NotConfigured('CLAMD_HOST is not set (the clamscan command scans instead: nothing to reach)')
      return await probeClamd(clamd, deadline(NETWORK_DEADLINE_MS))
    }
    if (name === 'agent-cli') return await probeAgentCli({ env, config: readSpawnConfig(env), deadlineMs: deadline(CLI_DEADLINE_MS) })
    if (isModel(name)) {
      const model = testModel(env, name)
      if (!model) throw new NotConfigured('OPENAI_COMPAT_MODEL is not set: no model to test')
      const baseUrl = displayUrl(providerBaseUrl(env, name) ?? undefined)
      return await probeModel(deps.facade, {
        provider: name,
        model,
        actor: deps.actor,
        deadlineMs: deadline(NETWORK_DEADLINE_MS * 3),
        baseUrl,
      })
    }
    throw new NotConfigured('OCR runs inside the collector (tesseract.js): nothing to connect to')
  }
  return await timed(name, scrub, probe, error => error instanceof NotConfigured ? `not configured: ${error.message}` : (error as Error).message)
}
