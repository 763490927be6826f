// A webhook's secret must be read back to verify each delivery's HMAC, so it cannot be
// hashed like a password: it is sealed with AES-256-GCM under a key derived (HKDF) from the
// hub's session key, which lives only in the environment or DATA_DIR/session-secret, never
// in the database. A database dump alone reveals no secret; changing the session key makes
// the sealed secrets unreadable (each hook then refuses deliveries until its secret is rotated).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

const VERSION = 'v1'

/** The sealing key: 32 bytes derived from the hub's session key for this one use. */
export function webhookSealKey(sessionKey: string): Buffer {
  if (sessionKey.length < 32) throw new Error('the session key must have at least 32 characters to seal webhook secrets')
  return Buffer.from(hkdfSync('sha256', sessionKey, 'synedre-webhook-secrets', 'agent_triggers.hook_secret', 32))
}

export function sealSecret(key: Buffer, secret: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join(':')
}

/** The secret, or null when it was sealed under another key (or altered). */
export function openSecret(key: Buffer, sealed: string): string | null {
  const [version, iv, tag, data] = sealed.split(':')
  if (version !== VERSION || !iv || !tag || !data) return null
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8')
  }
  catch {
    return null
  }
}

/** A new hook: its URL segment and its secret (32 random bytes each way). */
export function newHook(): { slug: string, secret: string } {
  return { slug: randomBytes(24).toString('base64url'), secret: randomBytes(32).toString('hex') }
}
