// Every 4xx leaves with one `data` shape, { code, message, issues? } (layers/base/core/error-shape.ts),
// whether a route, a middleware or h3 itself threw it; a query cut by the hub's statement
// timeout is a 503 saying so, not a 500. The 'error' hook runs before the error handler writes
// the answer, so shaping the error in place is enough.
import { isStatementTimeout, shapeClientErrorData } from '../../core/error-shape'

type H3Like = Error & { statusCode?: number, statusMessage?: string, data?: unknown, unhandled?: boolean }

export default defineNitroPlugin((nitroApp) => {
  nitroApp.hooks.hook('error', (error) => {
    const h3 = error as H3Like
    if (isStatementTimeout(h3)) {
      const message = `The database took longer than HUB_STATEMENT_TIMEOUT_MS (${process.env.HUB_STATEMENT_TIMEOUT_MS || '30000'} ms) to answer: try again, or narrow the view.`
      Object.assign(h3, { statusCode: 503, statusMessage: 'The database is busy.', message, unhandled: false, data: { code: 'statement_timeout', message } })
      return
    }
    const data = shapeClientErrorData(h3)
    if (!data) return
    const serialised = h3.message === 'Validation Error' || h3.message.trimStart().startsWith('[')
    h3.data = data
    // h3's validation error puts zod's serialised issues in the message itself.
    if (serialised) h3.message = data.message
    if (h3.statusMessage === 'Validation Error') h3.statusMessage = 'Invalid input.'
  })
})
