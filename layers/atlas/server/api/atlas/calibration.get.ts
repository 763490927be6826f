import { desc } from 'drizzle-orm'
import { z } from 'zod'
import { atlasCalibrationReports } from '#db/schema/atlas'
import { CalibrationInputError, computeCalibration, currentMonth } from '#layers/atlas/core/calibration'

const Query = z.object({ month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'month: YYYY-MM').optional() })

// The classifier calibration of a month, computed live, and the stored monthly reports.
export default defineEventHandler(async (event) => {
  const { month } = await getValidatedQuery(event, Query.parse)
  const db = await useDb()
  try {
    const live = await computeCalibration(db, month ?? currentMonth(new Date()))
    const stored = await db.select({ month: atlasCalibrationReports.month, generatedAt: atlasCalibrationReports.generatedAt })
      .from(atlasCalibrationReports).orderBy(desc(atlasCalibrationReports.month)).limit(24)
    return { live, stored }
  }
  catch (error) {
    if (error instanceof CalibrationInputError) throw createError({ statusCode: 400, statusMessage: error.message, data: { code: 'bad_month' } })
    throw error
  }
})
