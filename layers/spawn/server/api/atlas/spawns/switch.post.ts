import { z } from 'zod'
import { setSpawnSwitch } from '#layers/spawn/core/switch'

const Body = z.object({ disabled: z.boolean(), reason: z.string().trim().max(500).optional() })

// Founder only (shared/access.ts): the spawn engine's kill switch, turned from the hub and
// audited. Off, no new spawn starts and running spawns finish; ATLAS_SPAWN_DISABLED=1 keeps it
// off whatever is stored here.
export default defineEventHandler(async (event) => {
  // A body that is not JSON reads as none: zod then refuses it with the same machine-readable 400.
  const { disabled, reason } = validInput(Body, await readBody(event).catch(() => undefined))
  const user = currentUser(event)
  return { switch: await setSpawnSwitch(await useDb(), { disabled, by: user.email, reason: reason || null }) }
})
