// Closes the pool when the server stops, so Ctrl-C leaves no half-open connections — after
// the AI ledger's queued rows are written (they are batched off the calls' path).
export default defineNitroPlugin((nitroApp) => {
  nitroApp.hooks.hook('close', async () => {
    await flushAiFacade().catch((error: unknown) => console.error(`[ai] ledger: the rows still queued at shutdown were not written: ${(error as Error).message}`))
    await closeDatabase()
  })
})
