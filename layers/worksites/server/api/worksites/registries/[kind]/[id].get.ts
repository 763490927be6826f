import { registryDetail } from '#layers/worksites/core/registry-actions'

// Any signed-in role: a registry record, its timeline and the actions its status allows.
export default defineEventHandler(async (event) => {
  const { kind, id } = await worksitesParams(event, RegistryParams)
  return await worksitesCall(async () => registryDetail(await useDb(), useTimelineSources(), kind, id))
})
