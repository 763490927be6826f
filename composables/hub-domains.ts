import type { DomainDescriptor } from '#shared/domain'
import { localizeDomain } from '#shared/domain-words'
import { domains } from '#shared/domains'

/**
 * The domains in the reader's language (sidebar, search, landing pages). Their words live under
 * `app.domains.<id>` in the root catalog, since the descriptors are plain data shared with the
 * server; a word the catalog lacks (a page added since) shows as its descriptor says it.
 */
export function useHubDomains() {
  const { t, te } = useI18n()
  const say = (key: string, english: string) => (te(key) ? t(key) : english)
  const localize = (domain: DomainDescriptor) => localizeDomain(domain, say)
  return { domains: computed(() => domains.map(localize)), localize }
}
