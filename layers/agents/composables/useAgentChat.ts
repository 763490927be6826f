// The chat panel's shared state: whether it is open and the page it was opened from (its route
// path and, on a detail page, the record id), which a new turn passes to the run as working context.
export interface ChatPageContext { path: string, recordId?: string, title?: string }

/** The record a detail page shows: its route's single parameter (id, codename, …), when there is one. */
export function recordIdOf(params: Record<string, string | string[] | undefined>): string | undefined {
  const values = Object.values(params).filter((value): value is string => typeof value === 'string' && value !== '')
  return values.length === 1 ? values[0] : undefined
}

export function useAgentChat() {
  const open = useState('agent-chat-open', () => false)
  const page = useState<ChatPageContext | null>('agent-chat-page', () => null)
  const route = useRoute()
  /** Opens the panel with the current page as context. */
  function openChat() {
    const recordId = recordIdOf(route.params as Record<string, string | string[] | undefined>)
    page.value = {
      path: route.path,
      ...(recordId ? { recordId } : {}),
      ...(import.meta.client && document.title ? { title: document.title.slice(0, 300) } : {}),
    }
    open.value = true
  }
  return { open, page, openChat }
}
