/** A domain of the hub (one Nuxt layer): its entry in the sidebar and its landing page. */
export interface DomainDescriptor {
  id: string
  title: string
  icon: string
  summary: string
  /** What will live on the domain's pages, shown until they do. */
  planned: string[]
}
