// An agent's live state (heartbeats) in the page's language; a state the catalog does not
// name yet is shown as the registry wrote it.
const STATES = new Set(['working', 'idle', 'waiting', 'error', 'silent', 'dormant', 'inactive'])

export function useAgentStateName() {
  const { t } = useI18n()
  return (state: string) => (STATES.has(state) ? t(`agents.states.${state}`) : state)
}
