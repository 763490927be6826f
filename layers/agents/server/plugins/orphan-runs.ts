import { hostname } from 'node:os'
import { processAlive, sweepOrphanRuns } from '../../core/engine/sweeper'

// At hub start: agent runs a stopped hub process left `running` are failed with a clear error
// (nothing would ever finish them). In the background: the server does not wait for it.
export default defineNitroPlugin(() => {
  if (import.meta.prerender) return
  void (async () => {
    const swept = await sweepOrphanRuns({ db: await useDb(), host: hostname(), isProcessAlive: processAlive })
    if (swept.length > 0) console.warn(`[agents] ${swept.length} run(s) left running by a stopped hub marked failed: ${swept.map(run => run.id).join(', ')}`)
  })().catch((error: Error) => console.warn(`[agents] sweeping orphaned runs at start failed: ${error.message}`))
})
