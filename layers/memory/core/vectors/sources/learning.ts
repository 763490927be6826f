// Doctrines (active), drills and procedures (active): the learn_* rule and training tables.
import { eq } from 'drizzle-orm'
import { learnDoctrines, learnDrills, learnProcedures } from '#db/schema/learn'
import { joinParts } from '../chunk'
import type { SourceAdapter } from './types'

export const doctrineSource: SourceAdapter = {
  type: 'doctrine',
  load: async ({ db }) => ({
    documents: (await db.select().from(learnDoctrines).where(eq(learnDoctrines.active, true)))
      .map(row => ({ sourceId: String(row.id), title: row.title, text: joinParts(row.title, row.body) })),
  }),
}

export const drillSource: SourceAdapter = {
  type: 'drill',
  load: async ({ db }) => ({
    documents: (await db.select().from(learnDrills))
      .map(row => ({ sourceId: String(row.id), title: row.title, text: joinParts(row.title, row.scenario) })),
  }),
}

export const procedureSource: SourceAdapter = {
  type: 'procedure',
  load: async ({ db }) => ({
    documents: (await db.select().from(learnProcedures).where(eq(learnProcedures.active, true)))
      .map(row => ({ sourceId: String(row.id), title: row.title, text: joinParts(row.title, row.body) })),
  }),
}
