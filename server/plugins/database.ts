// Closes the pool when the server stops, so Ctrl-C leaves no half-open connections.
export default defineNitroPlugin((nitroApp) => {
  nitroApp.hooks.hook('close', closeDatabase)
})
