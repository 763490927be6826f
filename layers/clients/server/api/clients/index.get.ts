import { listClients } from '#layers/clients/core/clients'

export default defineEventHandler(async () => {
  return { items: await listClients(await useDb()) }
})
