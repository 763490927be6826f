// The person's model for their agent in the chat panel: Auto or one the founder allows (kept per
// person; a withdrawn one falls back to Auto at the next run, which says so on its page).
import type { InternalApi } from 'nitropack/types'

type ModelRow = InternalApi['/api/agents/models']['get']['surfaces']['hub_chat'][number]
const AUTO = 'auto'

export function useAgentChatModel() {
  const { t } = useI18n()
  const toast = useToast()
  const allowedModels = ref<ModelRow[]>([])
  const modelValue = ref(AUTO)
  const modelItems = computed(() => [
    { label: t('agents.chat.auto'), value: AUTO },
    ...allowedModels.value
      .filter(row => row.enabled)
      .map(row => ({ label: `${row.provider} / ${row.model}`, value: `${row.provider}/${row.model}` })),
  ])

  async function loadModels() {
    try {
      const options = await $fetch('/api/agents/models')
      allowedModels.value = options.surfaces.hub_chat
      const chosen = options.choice ? `${options.choice.provider}/${options.choice.model}` : AUTO
      modelValue.value = modelItems.value.some(item => item.value === chosen) ? chosen : AUTO
    }
    catch (error) {
      toast.add({
        title: t('agents.chat.modelsFailed'),
        description: failureMessage(error, t('agents.common.requestFailed')),
        color: 'error',
      })
    }
  }

  async function chooseModel(value: string) {
    const slash = value.indexOf('/')
    const body = value === AUTO ? { provider: null, model: null } : { provider: value.slice(0, slash), model: value.slice(slash + 1) }
    try {
      await $fetch('/api/agents/model-choice', { method: 'PUT', body })
      modelValue.value = value
    }
    catch (error) {
      toast.add({ title: t('agents.chat.modelFailed'), description: failureMessage(error, t('agents.common.requestFailed')), color: 'error' })
      await loadModels()
    }
  }

  return { allowedModels, modelValue, modelItems, loadModels, chooseModel }
}
