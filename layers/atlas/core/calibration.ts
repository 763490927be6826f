// The classifier calibration report (monthly): observability and threshold management,
// not retraining. Per intent: how many classifications, mean and standard deviation of the
// confidence, the proxy success rate (jobs neither cancelled nor rejected by a person / jobs
// created: a chantier draft rejected with a reason, a record cancelled, issue 16), the uncertainty
// rate; then failures, unsafe blocks, quarantines, and the promotion criterion
// (success rate > 90 % over at least 30 internal jobs).
import { sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { atlasCalibrationReports } from '#db/schema/atlas'
import { UNCERTAIN_BELOW } from './classify/guardrails'
import { INTENTS, type Intent } from '#layers/spawn/core/vocabulary'

export const PROMOTION_SUCCESS_RATE = 0.9
export const PROMOTION_MIN_JOBS = 30

export interface IntentCalibration {
  intent: Intent
  classified: number
  meanConfidence: number | null
  stdDevConfidence: number | null
  uncertain: number
  uncertaintyRate: number | null
  jobs: number
  cancelledJobs: number
  /** Chantier drafts a person rejected (with a reason) in the worksites inbox. */
  rejectedJobs: number
  /** Jobs neither cancelled nor rejected over jobs created (null when no job). */
  successRate: number | null
}

export interface CalibrationReport {
  month: string
  from: string
  to: string
  generatedAt: string
  totals: {
    classified: number
    uncertain: number
    uncertaintyRate: number | null
    classificationFailures: number
    failedMessagesFlagged: number
    blockedUnsafe: number
    quarantined: number
    jobs: number
    cancelledJobs: number
    rejectedJobs: number
    successRate: number | null
  }
  intents: IntentCalibration[]
  promotion: {
    threshold: number
    minJobs: number
    /** All internal jobs up to the end of the month (the criterion is a track record). */
    jobs: number
    successes: number
    successRate: number | null
    reached: boolean
    explanation: string
  }
}

export class CalibrationInputError extends Error {}

/** 'YYYY-MM' → [first instant, first instant of the next month) in UTC. */
export function monthRange(month: string): { from: Date, to: Date } {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(month)
  if (!match) throw new CalibrationInputError(`--month must be YYYY-MM, got "${month}"`)
  const year = Number(match[1])
  const index = Number(match[2]) - 1
  return { from: new Date(Date.UTC(year, index, 1)), to: new Date(Date.UTC(year, index + 1, 1)) }
}

export function previousMonth(now: Date): string {
  const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`
}

export function currentMonth(now: Date): string {
  return `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`
}

const ratio = (part: number, whole: number): number | null => (whole > 0 ? part / whole : null)
const round = (value: number | null, digits = 4): number | null =>
  value === null || Number.isNaN(value) ? null : Number(value.toFixed(digits))

/** The status of every materialised record, whatever its registry. */
const JOBS = sql`(
  select 'run' as kind, id, status from work_runs
  union all select 'chantier', id, status from work_chantiers
  union all select 'question', id, status from work_questions
  union all select 'negociation', id, status from work_negociations
  union all select 'conseil', id, status from work_conseils
)`

type IntentRow = {
  intent: string
  classified: number
  mean: number | null
  stddev: number | null
  uncertain: number
  jobs: number
  cancelled: number
  rejected: number
}

/** The month's figures as the database counts them: per intent, the pipeline's events, the flagged failures, the track record. */
async function readFigures(db: Pick<Db, 'execute'>, range: { from: Date, to: Date }) {
  const from = sql`${range.from.toISOString()}::timestamptz`
  const to = sql`${range.to.toISOString()}::timestamptz`
  const perIntent = await db.execute<IntentRow>(sql`
    select i.intent,
           count(*)::int as classified,
           avg(i.confidence)::float8 as mean,
           stddev_pop(i.confidence)::float8 as stddev,
           count(*) filter (where i.confidence < ${UNCERTAIN_BELOW})::int as uncertain,
           count(j.id)::int as jobs,
           count(j.id) filter (where j.status = 'cancelled')::int as cancelled,
           count(j.id) filter (where j.status = 'rejected')::int as rejected
    from atlas_inbox i
    left join ${JOBS} j on j.kind = i.materialised_kind and j.id = i.materialised_id
    where i.intent is not null and i.classified_at >= ${from} and i.classified_at < ${to}
    group by i.intent`)
  const [events] = await db.execute<{ failures: number, blocked: number, quarantined: number }>(sql`
    select count(*) filter (where action = 'classification_failed')::int as failures,
           count(*) filter (where action = 'blocked_unsafe')::int as blocked,
           count(*) filter (where action = 'quarantined')::int as quarantined
    from atlas_audit where at >= ${from} and at < ${to}`)
  const [flagged] = await db.execute<{ n: number }>(sql`
    select count(*)::int as n from atlas_inbox
    where status = 'classification_failed' and needs_human and updated_at >= ${from} and updated_at < ${to}`)
  const [track] = await db.execute<{ jobs: number, cancelled: number }>(sql`
    select count(j.id)::int as jobs, count(j.id) filter (where j.status in ('cancelled', 'rejected'))::int as cancelled
    from atlas_inbox i join ${JOBS} j on j.kind = i.materialised_kind and j.id = i.materialised_id
    where i.classified_at < ${to}`)
  return { perIntent, events, flagged, track }
}

/** One line per intent of the vocabulary, zero for an intent the month did not see. */
function intentCalibrations(perIntent: IntentRow[]): IntentCalibration[] {
  const byIntent = new Map(perIntent.map(row => [row.intent, row]))
  return INTENTS.map((intent) => {
    const row = byIntent.get(intent)
    const classified = row?.classified ?? 0
    const jobs = row?.jobs ?? 0
    const cancelled = row?.cancelled ?? 0
    const rejected = row?.rejected ?? 0
    return {
      intent,
      classified,
      meanConfidence: round(row?.mean ?? null),
      stdDevConfidence: round(row?.stddev ?? null),
      uncertain: row?.uncertain ?? 0,
      uncertaintyRate: round(ratio(row?.uncertain ?? 0, classified)),
      jobs,
      cancelledJobs: cancelled,
      rejectedJobs: rejected,
      successRate: round(ratio(jobs - cancelled - rejected, jobs)),
    }
  })
}

/** Whether the whole track record (every month so far) reaches the threshold for multi-tenant use. */
function promotionOf(track: { jobs: number, cancelled: number } | undefined): CalibrationReport['promotion'] {
  const trackJobs = track?.jobs ?? 0
  const successes = trackJobs - (track?.cancelled ?? 0)
  const successRate = ratio(successes, trackJobs)
  const reached = trackJobs >= PROMOTION_MIN_JOBS && successRate !== null && successRate > PROMOTION_SUCCESS_RATE
  const percent = successRate === null ? 'no job yet' : `${(successRate * 100).toFixed(1)} % success`
  return {
    threshold: PROMOTION_SUCCESS_RATE,
    minJobs: PROMOTION_MIN_JOBS,
    jobs: trackJobs,
    successes,
    successRate: round(successRate),
    reached,
    explanation: reached
      ? `Reached: ${percent} over ${trackJobs} internal jobs (> ${PROMOTION_SUCCESS_RATE * 100} % over ≥ ${PROMOTION_MIN_JOBS}). Multi-tenant use may be considered.`
      : `Not reached: ${percent} over ${trackJobs} internal job(s); needs > ${PROMOTION_SUCCESS_RATE * 100} % over ≥ ${PROMOTION_MIN_JOBS}. Atlas stays internal.`,
  }
}

export async function computeCalibration(db: Pick<Db, 'execute'>, month: string, now = new Date()): Promise<CalibrationReport> {
  const range = monthRange(month)
  const { perIntent, events, flagged, track } = await readFigures(db, range)
  const intents = intentCalibrations(perIntent)
  const sum = (pick: (i: IntentCalibration) => number) => intents.reduce((total, i) => total + pick(i), 0)
  const classified = sum(i => i.classified)
  const uncertain = sum(i => i.uncertain)
  const jobs = sum(i => i.jobs)
  const cancelledJobs = sum(i => i.cancelledJobs)
  const rejectedJobs = sum(i => i.rejectedJobs)
  return {
    month,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    generatedAt: now.toISOString(),
    totals: {
      classified,
      uncertain,
      uncertaintyRate: round(ratio(uncertain, classified)),
      classificationFailures: events?.failures ?? 0,
      failedMessagesFlagged: flagged?.n ?? 0,
      blockedUnsafe: events?.blocked ?? 0,
      quarantined: events?.quarantined ?? 0,
      jobs,
      cancelledJobs,
      rejectedJobs,
      successRate: round(ratio(jobs - cancelledJobs - rejectedJobs, jobs)),
    },
    intents,
    promotion: promotionOf(track),
  }
}

export async function storeCalibration(db: Pick<Db, 'insert'>, report: CalibrationReport): Promise<void> {
  await db
    .insert(atlasCalibrationReports)
    .values({ month: report.month, report: report as unknown as Record<string, unknown>, generatedAt: new Date(report.generatedAt) })
    .onConflictDoUpdate({
      target: atlasCalibrationReports.month,
      set: { report: report as unknown as Record<string, unknown>, generatedAt: new Date(report.generatedAt) },
    })
}

export function formatCalibration(report: CalibrationReport): string {
  const pct = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(1)} %`)
  const num = (value: number | null) => (value === null ? '—' : value.toFixed(3))
  const lines = [
    `Atlas classifier calibration, ${report.month} (${report.totals.classified} classification(s))`,
    'intent        count  mean   stddev  uncertain  jobs  rejected  success',
    ...report.intents.map(i => `${i.intent.padEnd(12)}  ${String(i.classified).padStart(5)}  ${num(i.meanConfidence).padStart(5)}  ${num(i.stdDevConfidence).padStart(6)}  ${pct(i.uncertaintyRate).padStart(9)}  ${String(i.jobs).padStart(4)}  ${String(i.rejectedJobs).padStart(8)}  ${pct(i.successRate).padStart(7)}`),
    `uncertainty rate ${pct(report.totals.uncertaintyRate)}; classification failures ${report.totals.classificationFailures} (${report.totals.failedMessagesFlagged} flagged for a person); unsafe blocks ${report.totals.blockedUnsafe}; quarantined ${report.totals.quarantined}`,
    `promotion: ${report.promotion.explanation}`,
  ]
  return lines.join('\n')
}
