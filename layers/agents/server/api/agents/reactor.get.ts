import { reactorNodes } from '#layers/agents/core/registry'
import { RING_MOTION } from '#layers/agents/core/families'

// Any signed-in role: the reactor's nodes (every active agent on its family's ring, with its
// live state from heartbeats) and each ring's motion.
export default defineEventHandler(async () => {
  return { rings: RING_MOTION, nodes: await reactorNodes(await useDb()) }
})
