import { defaultDataDir } from '#db/client'
import { provideMcpRuntime } from '#layers/agents/core/mcp/runtime'
import { hubMcpRuntime } from '#layers/hub/core/mcp-wiring'

/**
 * Connects the registered MCP servers when the hub starts (issue 35): their tools join the
 * custom agents' registry (customToolRegistry) as soon as they are listed and classified. The
 * connections are closed when the hub stops, which ends every stdio server's sandbox.
 */
export default defineNitroPlugin((nitro) => {
  const log = (line: string) => console.warn(line)
  let runtime: ReturnType<typeof hubMcpRuntime> | undefined
  const ready = useDb().then(async (db) => {
    runtime = hubMcpRuntime({ db, env: process.env, dataDir: defaultDataDir(), log })
    provideMcpRuntime(runtime)
    await runtime.refresh()
    await runtime.manager.start()
  })
  ready.catch((error: unknown) => log(`[mcp] the MCP servers could not be started: ${error instanceof Error ? error.message : String(error)}`))
  nitro.hooks.hook('close', async () => {
    provideMcpRuntime(null)
    await runtime?.manager.close()
  })
})
