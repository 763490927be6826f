// How the facade's errors become HTTP answers (for the thin Nitro routes): a status and a
// machine-readable body, with messages that were redacted before they were thrown.
import { AiAbortedError, AiRequestError, AiUnavailableError } from './errors'

export interface ApiErrorShape {
  statusCode: number
  statusMessage: string
  data: { code: string, failures?: Array<{ provider: string, code: string, status?: number }> }
}

export function apiError(error: unknown): ApiErrorShape | null {
  if (error instanceof AiRequestError) return { statusCode: 400, statusMessage: error.message, data: { code: error.code } }
  if (error instanceof AiUnavailableError) {
    return {
      statusCode: 503,
      statusMessage: error.message,
      data: {
        code: error.code,
        failures: error.failures.map(({ provider, code, status }) => ({ provider, code, ...(status ? { status } : {}) })),
      },
    }
  }
  if (error instanceof AiAbortedError) return { statusCode: 499, statusMessage: error.message, data: { code: error.code } }
  return null
}
