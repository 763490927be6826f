// What a webhook delivery needs from layers the agents layer may not import: spawn's
// untrusted fencing (the same nonce-delimited, defused blocks Atlas uses for mail) and a
// launcher that answers with the run's id at once — a forge waits ten seconds at most — and
// drives the run afterwards.
import { customRunContext } from '#layers/agents/core/custom/access'
import type { LaunchRun } from '#layers/agents/core/custom/dispatcher'
import type { UntrustedFence } from '#layers/agents/core/custom/webhooks'
import { createRun, driveRun, type EngineDeps } from '#layers/agents/core/engine/loop'
import { defuse, untrustedBlock, untrustedLine, untrustedMarkers } from '#layers/spawn/core/untrusted'

export function untrustedFence(): UntrustedFence {
  const markers = untrustedMarkers()
  return {
    line: (value, max) => untrustedLine(value, max, markers.nonce),
    block: (what, lines) => untrustedBlock(markers, what, lines.map(line => defuse(line, markers.nonce))),
  }
}

/** An autonomous run of the agent, created now and driven in the background (its failure is logged and kept on the run). */
export function backgroundLauncher(deps: EngineDeps, log: (line: string) => void): LaunchRun {
  return async ({ codename, request }) => {
    const context = await customRunContext(deps.db, deps.registry, { codename, request, trigger: 'autonomous', surface: 'automate' })
    const run = await createRun(deps, context)
    driveRun(deps, run.id).catch((error: unknown) => log(`webhook run ${run.id} of ${codename} failed: ${error instanceof Error ? error.message : String(error)}`))
    return run.id
  }
}
