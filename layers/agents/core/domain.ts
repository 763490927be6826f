import type { DomainDescriptor } from '#shared/domain'

/** What the hub shows of this domain in its sidebar and landing page. */
export const domain: DomainDescriptor = {
  id: 'agents',
  title: 'Agents',
  icon: 'i-lucide-bot',
  summary: 'The registry of personas and the reactor that shows them at work.',
  planned: [
    'The roster of about thirty agents across four families and three rings',
    'Persona briefings in three tiers with their token counts',
    'The animated reactor with each agent\'s live state',
    'Routing by prompt domain',
  ],
  pages: [
    { label: 'Runs', icon: 'i-lucide-route', to: '/hub/agents/runs' },
    { label: 'Instructions', icon: 'i-lucide-scroll-text', to: '/hub/agents/instructions' },
    { label: 'Models', icon: 'i-lucide-cpu', to: '/hub/agents/models' },
    { label: 'MCP servers', icon: 'i-lucide-plug', to: '/hub/agents/mcp' },
  ],
}
