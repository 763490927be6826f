// The hub's pool runs with a statement_timeout (HUB_STATEMENT_TIMEOUT_MS), so one slow or
// hostile query cannot hold a connection people's requests wait for; other pools (migrations,
// nightly jobs building indexes) keep none. PostgreSQL only: PGlite ignores the setting (its one
// backend runs every statement to the end; docs/security.md says so).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectDatabase, type Database } from '#db/connection'
import { hubSessionSettings } from '#db/session-settings'
import { isStatementTimeout } from '#layers/base/core/error-shape'
import { createTestDatabase, type TestDatabase } from '../helpers/databases'

let database: TestDatabase
let hubPool: Database

beforeAll(async () => {
  database = await createTestDatabase('native', { max: 1 })
  hubPool = await connectDatabase(database.url, { max: 2, settings: hubSessionSettings({ HUB_STATEMENT_TIMEOUT_MS: '300' }) })
})

afterAll(async () => {
  await hubPool?.close()
  await database?.close()
})

describe('the hub pool statement timeout', () => {
  it('cuts a statement of the hub pool past the timeout, as a statement timeout the hub answers 503 to', async () => {
    const cut = await hubPool.sql`select pg_sleep(5)`.catch((error: unknown) => error)
    expect(cut).toMatchObject({ code: '57014' })
    expect(isStatementTimeout(new Error('wrapped', { cause: cut }))).toBe(true)
    // The connection is fine afterwards.
    expect((await hubPool.sql`select 1 as one`)[0]).toEqual({ one: 1 })
  })

  it('leaves other pools without one', async () => {
    expect((await database.sql`select pg_sleep(0.6)::text as slept`)[0]).toEqual({ slept: '' })
  })

  it('reads the setting: 30 s by default, 0 for none, a clear error for anything else', () => {
    expect(hubSessionSettings({})).toEqual({ statement_timeout: '30000' })
    expect(hubSessionSettings({ HUB_STATEMENT_TIMEOUT_MS: '0' })).toEqual({})
    expect(() => hubSessionSettings({ HUB_STATEMENT_TIMEOUT_MS: '2s' })).toThrow(/HUB_STATEMENT_TIMEOUT_MS must be a whole number/)
  })
})
