// The mailbox test: log in with the collector's credentials, list the folders, and say
// whether the folder Atlas watches (ATLAS_IMAP_MAILBOX) is among them; then log out.
import { ImapFlow } from 'imapflow'
import type { ImapConfig } from '#layers/atlas/core/config'
import { networkFailure, withDeadline } from './words'

/** The whole exchange under `deadlineMs`; throws a failure already in words. */
export async function probeImap(config: ImapConfig, deadlineMs: number): Promise<string> {
  const client = new ImapFlow({
    host: config.host,
    port: config.port,
    secure: config.secure,
    auth: { user: config.user, pass: config.password },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: deadlineMs,
    greetingTimeout: deadlineMs,
    socketTimeout: deadlineMs,
  })
  // imapflow emits socket errors as events too: without a listener one would crash the process.
  client.on('error', () => {})
  try {
    const folders = await withDeadline(deadlineMs, (async () => {
      await client.connect()
      return await client.list()
    })(), () => client.close())
    const paths = folders.map(folder => folder.path)
    const found = paths.some(path => path.toLowerCase() === config.mailbox.toLowerCase())
    const listing = `${paths.length} folder${paths.length === 1 ? '' : 's'}`
    if (!found) throw new ImapProbeError(`logged in as ${config.user} (${listing}) but the folder "${config.mailbox}" (ATLAS_IMAP_MAILBOX) does not exist`)
    return `logged in as ${config.user} on ${config.host}:${config.port}; ${listing}, the Atlas folder "${config.mailbox}" exists`
  }
  catch (error) {
    if (error instanceof ImapProbeError) throw error
    throw new ImapProbeError(imapFailure(error, config))
  }
  finally {
    if (client.usable) await client.logout().catch(() => client.close())
    else client.close()
  }
}

class ImapProbeError extends Error {}

function imapFailure(error: unknown, config: ImapConfig): string {
  const { authenticationFailed, responseText, message } = error as {
    authenticationFailed?: boolean
    responseText?: string
    message?: string
  }
  if (authenticationFailed) return `login refused for ${config.user} on ${config.host}:${config.port}${responseText ? ` (${responseText})` : ''}`
  return networkFailure(error, config.host, config.port) ?? `IMAP at ${config.host}:${config.port} failed: ${responseText ?? message ?? String(error)}`
}
