import { listNotifications } from '../core/notifications'

// The notifications slideover: open alerts and the messages waiting for a person (any signed-in role).
export default defineEventHandler(async () => {
  return await listNotifications(await useDb())
})
