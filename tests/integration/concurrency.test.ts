import { expect, it } from 'vitest'
import { connectDatabase } from '#db/connection'
import { describeOnBothDatabases } from '../helpers/databases'

describeOnBothDatabases('many connections at once', (database) => {
  it('keeps each connection\'s extended-protocol statements and transactions apart', async () => {
    const other = await connectDatabase(database().url, { max: 8 })
    const { sql } = database()
    try {
      await sql`create table if not exists probe_counter (id int primary key, n int not null)`
      await sql`insert into probe_counter values (1, 0) on conflict (id) do update set n = 0`
      const shapes = Array.from({ length: 60 }, (_, i) => {
        const client = i % 2 === 0 ? sql : other.sql
        return i % 3 === 0
          ? client`select ${i}::int as a, ${'x'}::text as b, ${true}::bool as c, ${i * 2}::int as d, ${'y'}::text as e`.then(r => r[0]!.a + r[0]!.d)
          : client`select ${i}::int as a`.then(r => r[0]!.a + 2 * r[0]!.a)
      })
      const transfers = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? sql : other.sql).begin(async (tx) => {
        const [row] = await tx`select n from probe_counter where id = 1 for update`
        await tx`update probe_counter set n = ${row!.n + 1} where id = 1`
      }))
      const sums = await Promise.all(shapes)
      await Promise.all(transfers)
      expect(sums).toEqual(Array.from({ length: 60 }, (_, i) => 3 * i))
      const [counter] = await sql`select n from probe_counter where id = 1`
      expect(counter!.n).toBe(20)
      await expect(other.sql`select * from no_such_table`).rejects.toThrow(/no_such_table/)
      expect((await sql`select 1 as one`)[0]!.one).toBe(1)
    }
    finally {
      await sql`drop table if exists probe_counter`
      await other.close()
    }
  })
})
