import { expect, it } from 'vitest'
import { describeOnBothDatabases } from '../helpers/databases'
import { startTs } from '../helpers/processes'

describeOnBothDatabases('a client killed inside a transaction', (database) => {
  it('leaves the database serving the others, its transaction rolled back', async () => {
    const holder = startTs('tests/fixtures/hold-transaction.ts', [], { env: { DATABASE_URL: database().url } })
    await holder.waitFor(/in transaction/)
    holder.child.kill('SIGKILL')
    await holder.exited
    const { sql } = database()
    const [row] = await sql`select to_regclass('public.probe_killed') as found`
    expect(row!.found).toBeNull()
    expect((await sql`select 1 as one`)[0]!.one).toBe(1)
  })
})
