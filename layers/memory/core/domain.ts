import type { DomainDescriptor } from '#shared/domain'

/** What the hub shows of this domain in its sidebar and landing page. */
export const domain: DomainDescriptor = {
  id: 'memory',
  title: 'Memory',
  icon: 'i-lucide-brain',
  summary: 'The vault, the vector index and hybrid recall, with its evaluation gate.',
  planned: [
    'Vault notes indexed with their frontmatter and links',
    'Embeddings of scars, doctrines, procedures and more',
    'Hybrid recall (semantic + lexical) with its evaluation gate',
    'The user model',
  ],
  pages: [
    { label: 'Vault', icon: 'i-lucide-library', to: '/hub/memory/vault' },
    { label: 'Reflex memory', icon: 'i-lucide-zap', to: '/hub/memory/reflex' },
    { label: 'User model', icon: 'i-lucide-user-round-cog', to: '/hub/memory/user-model' },
    { label: 'Mission briefs', icon: 'i-lucide-target', to: '/hub/memory/briefs' },
  ],
}
