// Ongoing projects: the chantiers registry (work_chantiers, owned by the Atlas / worksites
// issues), drafts, planned and active ones (the worksites vocabulary's open statuses,
// layers/worksites/core/vocabulary.ts, not imported: memory sits below worksites); done,
// cancelled and rejected chantiers leave the index.
import { inArray } from 'drizzle-orm'
import { workChantiers } from '#db/schema/work'
import { joinParts } from '../chunk'
import type { SourceAdapter } from './types'

export const ONGOING_CHANTIER_STATUSES = ['draft', 'planned', 'active']

export const projectSource: SourceAdapter = {
  type: 'project',
  load: async ({ db }) => ({
    documents: (await db.select().from(workChantiers).where(inArray(workChantiers.status, ONGOING_CHANTIER_STATUSES))).map(row => ({
      sourceId: row.id,
      title: row.title,
      text: joinParts(row.title, row.brief),
      metadata: { status: row.status, tenantId: row.tenantId },
    })),
  }),
}
