// The chat panel's conversation: its turns, each a run of the person's own agent started by
// POST /api/agents/chat and followed live over server-sent events (GET /api/agents/runs/:id/stream),
// and the person's past conversations, one of which can be reopened and continued.
import type { InternalApi } from 'nitropack/types'

// The stream's `done` event carries the run page's view, its `step` events that view's steps.
type RunView = InternalApi['/api/agents/runs/:id']['get']
type LiveStep = RunView['steps'][number]
type AgentFile = InternalApi['/api/agents/files']['post']['files'][number]
type ConversationSummary = InternalApi['/api/agents/chat/conversations']['get']['conversations'][number]
export interface ChatPanelTurn {
  runId: string | null
  request: string
  answer: string | null
  status: string
  error: string | null
  steps: LiveStep[]
  sources: RunView['sources']
  skills: string[]
  files: Array<AgentFile | RunView['files'][number]>
}

export function useAgentChatTurns() {
  const { page } = useAgentChat()
  const { t } = useI18n()
  const toast = useToast()
  const turns = ref<ChatPanelTurn[]>([])
  const conversationId = ref<string | null>(null)
  const conversations = ref<ConversationSummary[]>([])
  const sending = ref(false)
  const live = computed(() => turns.value.some(turn => turn.status === 'running'))
  let source: EventSource | null = null

  async function loadConversations() {
    try {
      conversations.value = (await $fetch('/api/agents/chat/conversations')).conversations
    }
    catch (error) {
      toast.add({
        title: t('agents.chat.conversationsFailed'),
        description: failureMessage(error, t('agents.common.requestFailed')),
        color: 'error',
      })
    }
  }

  function closeStream() {
    source?.close()
    source = null
  }
  onBeforeUnmount(closeStream)

  function newConversation() {
    closeStream()
    conversationId.value = null
    turns.value = []
  }

  async function openConversation(id: string) {
    closeStream()
    try {
      const found = await $fetch(`/api/agents/chat/conversations/${id}`)
      conversationId.value = id
      turns.value = found.turns.map(turn => ({ ...turn, steps: [], sources: [], skills: [], files: [] }))
    }
    catch (error) {
      toast.add({ title: t('agents.chat.openFailed'), description: failureMessage(error, t('agents.common.requestFailed')), color: 'error' })
    }
  }

  function follow(turn: ChatPanelTurn, runId: string) {
    closeStream()
    const stream = new EventSource(`/api/agents/runs/${runId}/stream`)
    source = stream
    stream.addEventListener('step', (event) => {
      const step = JSON.parse((event as MessageEvent<string>).data) as LiveStep
      turn.steps.push(step)
    })
    stream.addEventListener('status', (event) => {
      turn.status = (event as MessageEvent<string>).data
    })
    stream.addEventListener('done', (event) => {
      const view = JSON.parse((event as MessageEvent<string>).data) as RunView
      Object.assign(turn, {
        status: view.run.status,
        answer: view.run.answer,
        error: view.run.error,
        sources: view.sources,
        skills: view.skills,
        files: (view.files ?? []).filter(file => file.direction === 'out'),
      })
      closeStream()
      void loadConversations()
    })
    stream.addEventListener('timeout', () => {
      turn.error = t('agents.chat.stillWorking')
      closeStream()
    })
    stream.onerror = () => {
      // The browser retries a dropped stream by itself; a closed one is said on the turn.
      if (stream.readyState === EventSource.CLOSED && turn.status === 'running') turn.error = t('agents.chat.streamLost')
    }
  }

  /** Starts a turn with the files attached to it; `started` runs once the run exists (the prompt empties then). */
  async function ask(request: string, fileIds: string[], started: () => void) {
    if (!request || sending.value || live.value) return
    sending.value = true
    try {
      const answer = await $fetch('/api/agents/chat', {
        method: 'POST',
        body: {
          request,
          ...(conversationId.value ? { conversationId: conversationId.value } : {}),
          ...(page.value ? { page: page.value } : {}),
          fileIds,
        },
      })
      started()
      conversationId.value = answer.conversationId
      turns.value.push({
        runId: answer.runId,
        request,
        answer: null,
        status: 'running',
        error: null,
        steps: [],
        sources: [],
        skills: [],
        files: [],
      })
      follow(turns.value[turns.value.length - 1]!, answer.runId)
    }
    catch (error) {
      toast.add({ title: t('agents.chat.startFailed'), description: failureMessage(error, t('agents.common.requestFailed')), color: 'error' })
    }
    finally {
      sending.value = false
    }
  }

  return { turns, conversations, sending, live, loadConversations, newConversation, openConversation, ask }
}
