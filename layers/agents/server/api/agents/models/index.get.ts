import { knownModels, modelChoice, surfaceModels } from '#layers/agents/core/engine/models'

// The models each surface allows (everyone reads them; only a founder edits), the catalog's
// known models, which providers are configured, and the signed-in person's own choice.
export default defineEventHandler(async (event) => {
  const user = currentUser(event)
  const db = await useDb()
  const [rows, choice] = await Promise.all([surfaceModels(db), modelChoice(db, user.email, 'hub_chat')])
  return {
    surfaces: { hub_chat: rows.filter(row => row.surface === 'hub_chat'), custom_agent: rows.filter(row => row.surface === 'custom_agent') },
    known: knownModels(),
    providers: useAiFacade().providers().filter(status => status.capabilities.includes('completion')).map(status => ({ provider: status.provider, label: status.label, configured: status.configured, coolingDown: status.coolingDown })),
    choice,
    canEdit: user.role === 'founder',
  }
})
