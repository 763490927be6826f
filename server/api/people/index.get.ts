// Founder only (shared/access.ts): the people who may sign in.
import { listPeople } from '#server/core/people'

export default defineEventHandler(async () => {
  return { items: await listPeople(await useDb()) }
})
