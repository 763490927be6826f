/** A domain of the hub (one Nuxt layer): its entry in the sidebar and its landing page. */
export interface DomainDescriptor {
  id: string
  title: string
  icon: string
  summary: string
  /** What will live on the domain's pages, shown until they do. */
  planned: string[]
  /** The domain's own pages, listed under it in the sidebar. */
  pages?: Array<{ label: string, icon: string, to: string }>
}
