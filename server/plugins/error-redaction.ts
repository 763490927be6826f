// A 500 is logged with its stack, never with the values of a query: drizzle writes them in
// its error message ("Failed query: … params: …") and keeps them on the error, where a
// sign-in e-mail or a message text would land in the log.
import { redactQueryError } from '../core/error-redaction'

export default defineNitroPlugin((nitroApp) => {
  // Runs before the error handler writes the error to the log.
  nitroApp.hooks.hook('error', (error) => {
    redactQueryError(error)
  })
})
