import type { DomainDescriptor } from './domain'

/** `/hub/memory/user-model` → `userModel`: a domain page's key under app.domains.<id>.pages. */
const pageKey = (to: string) => (to.split('/').pop() ?? '').replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase())

/**
 * A descriptor with each of its words passed through `say(key, english)`: its keys are under
 * `app.domains.<id>` in the root catalog (composables/hub-domains.ts gives `say` its `t`).
 */
export function localizeDomain(domain: DomainDescriptor, say: (key: string, english: string) => string): DomainDescriptor {
  const base = `app.domains.${domain.id}`
  return {
    ...domain,
    title: say(`${base}.title`, domain.title),
    summary: say(`${base}.summary`, domain.summary),
    planned: domain.planned.map((item, index) => say(`${base}.planned.${index}`, item)),
    pages: domain.pages?.map(page => ({ ...page, label: say(`${base}.pages.${pageKey(page.to)}`, page.label) })),
  }
}
