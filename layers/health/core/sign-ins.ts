// The hub's door, as the founder sees it: the wrong passwords (hub_sign_in_failures) and the
// tries refused unchecked while the limiter made someone wait (hub_sign_in_refusals, one row a
// minute), over a window, per account and address. Only the first refusal of a minute reaches
// hub_audit, so without this view a flood showed as one line.
import { and, desc, gte, sql } from 'drizzle-orm'
import type { Db } from '#db/client'
import { hubSignInFailures, hubSignInRefusals } from '#db/schema/hub'

export interface SignInPressure {
  email: string
  address: string
  /** Wrong passwords (at sign-in or at the password change). */
  failures: number
  /** Tries refused unchecked, the limiter making them wait. */
  refused: number
  lastAt: string
}

export interface SignInReport {
  windowHours: number
  failures: number
  refused: number
  /** The busiest account–address pairs first, at most `limit`. */
  pairs: SignInPressure[]
}

export async function readSignInReport(db: Db, options: { windowHours: number, limit: number, now?: Date }): Promise<SignInReport> {
  const since = new Date((options.now ?? new Date()).getTime() - options.windowHours * 3_600_000)
  const failed = db.select({
    email: hubSignInFailures.email, address: hubSignInFailures.address,
    failures: sql<number>`count(*)::int`.as('failures'), refused: sql<number>`0`.as('refused'), lastAt: sql<Date>`max(${hubSignInFailures.at})`.as('last_at'),
  }).from(hubSignInFailures).where(gte(hubSignInFailures.at, since)).groupBy(hubSignInFailures.email, hubSignInFailures.address)
  const refused = db.select({
    email: hubSignInRefusals.email, address: hubSignInRefusals.address,
    failures: sql<number>`0`.as('failures'), refused: sql<number>`sum(${hubSignInRefusals.count})::int`.as('refused'), lastAt: sql<Date>`max(${hubSignInRefusals.minute})`.as('last_at'),
  }).from(hubSignInRefusals).where(and(gte(hubSignInRefusals.minute, since))).groupBy(hubSignInRefusals.email, hubSignInRefusals.address)
  const both = failed.unionAll(refused).as('both')
  const rows = await db.select({
    email: both.email, address: both.address,
    failures: sql<number>`sum(${both.failures})::int`, refused: sql<number>`sum(${both.refused})::int`, lastAt: sql<string>`max(${both.lastAt})`,
  }).from(both).groupBy(both.email, both.address)
    .orderBy(desc(sql`sum(${both.failures}) + sum(${both.refused})`), both.email)
  return {
    windowHours: options.windowHours,
    failures: rows.reduce((sum, row) => sum + row.failures, 0),
    refused: rows.reduce((sum, row) => sum + row.refused, 0),
    pairs: rows.slice(0, options.limit).map(row => ({ ...row, lastAt: new Date(row.lastAt).toISOString() })),
  }
}
