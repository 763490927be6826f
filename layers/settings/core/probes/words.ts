// What a failed connection says, in words: the library's error turned into one sentence the
// settings page can show, scrubbed of every secret the environment holds (a library may
// echo a password or a key in its error text).
import { createRedactor, type Redactor } from '#layers/ai/core/redact'
import { secretValues, type AiEnv } from '#layers/ai/core/env'
import type { ConnectionName, ConnectionTestResult } from '../schemas'

/** The scrubber for one environment: its secrets (keys, passwords, URL passwords) and the given ones. */
export function scrubberFor(env: AiEnv, extra: Array<string | undefined> = []): Redactor {
  return createRedactor([...secretValues(env), ...extra.filter((value): value is string => !!value)])
}

export class DeadlineError extends Error {
  constructor(readonly ms: number) {
    super(`timed out after ${formatSeconds(ms)}`)
    this.name = 'DeadlineError'
  }
}

export function formatSeconds(ms: number): string {
  const seconds = ms / 1000
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`
}

/** Runs `work` under a deadline; `onTimeout` closes whatever it left open. */
export async function withDeadline<T>(ms: number, work: Promise<T>, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      onTimeout?.()
      reject(new DeadlineError(ms))
    }, ms)
  })
  try {
    return await Promise.race([work, late])
  }
  finally {
    clearTimeout(timer)
  }
}

/** A socket-level failure in words, or undefined when the error is not one. */
export function networkFailure(error: unknown, host: string, port: number): string | undefined {
  const { code, message } = error as { code?: string, message?: string }
  const text = `${code ?? ''} ${message ?? ''}`
  const where = `${host}:${port}`
  if (error instanceof DeadlineError) return `${error.message} waiting for ${where}`
  if (/ECONNREFUSED/.test(text)) return `connection refused on ${where}`
  if (/ENOTFOUND|EAI_AGAIN/.test(text)) return `the host ${host} was not found (DNS)`
  if (/ETIMEDOUT|timed? ?out/i.test(text)) return `timed out connecting to ${where}`
  if (/EHOSTUNREACH|ENETUNREACH/.test(text)) return `no route to ${where}`
  if (/ECONNRESET|EPIPE|closed unexpectedly|Connection closed/i.test(text)) return `${where} closed the connection`
  if (/SSL|TLS|wrong version number|certificate|EPROTO/i.test(text)) return `the TLS handshake with ${where} failed (${message ?? code}): check the TLS setting against the port`
  return undefined
}

/** Times a probe and shapes its outcome; any thrown error becomes a failure in words, scrubbed. */
export async function timed(
  name: ConnectionName,
  scrub: Redactor,
  probe: () => Promise<string>,
  explain: (error: unknown) => string,
): Promise<ConnectionTestResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  try {
    const detail = await probe()
    return { name, ok: true, detail: scrub(detail), elapsedMs: elapsed() }
  }
  catch (error) {
    return { name, ok: false, detail: scrub(explain(error)), elapsedMs: elapsed() }
  }
}
