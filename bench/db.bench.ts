// The database, both sides in one run: the embedded PGlite (over its loopback socket, as
// the hub uses it) and the native PostgreSQL, through the same postgres.js path.
import type { Database } from '../db/connection'
import { embeddedBenchDatabase, nativeBenchDatabase } from './databases'
import { median, sample, type BenchFigure } from './lib'

const ROUNDS = 7
const LOOKUPS = 500

async function measure(database: Database): Promise<{ insertMs: number, lookupUs: number }> {
  const { sql } = database
  await sql`create table bench_rows (id serial primary key, label text not null, payload jsonb not null)`
  const insertRounds: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    await sql`truncate bench_rows restart identity`
    const start = process.hrtime.bigint()
    await sql.begin(async (tx) => {
      for (let i = 0; i < 1000; i++) await tx`insert into bench_rows (label, payload) values (${`row ${i}`}, ${JSON.stringify({ i, round })}::jsonb)`
    })
    insertRounds.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  let i = 0
  const lookups = await sample(async () => {
    i = (i * 7919 + 13) % 1000
    await sql`select label from bench_rows where id = ${i + 1}`
  }, LOOKUPS)
  return { insertMs: median(insertRounds.slice(1)), lookupUs: median(lookups) }
}

export default async function (): Promise<BenchFigure[]> {
  const embedded = await embeddedBenchDatabase('db', { max: 1, migrate: false })
  const native = await nativeBenchDatabase('db', { max: 1, migrate: false })
  try {
    const sides = { embedded: await measure(embedded), native: await measure(native) }
    const context = { rounds: ROUNDS, lookups: LOOKUPS, statement: '1000 single-row INSERTs in one transaction; primary-key SELECT', driver: 'postgres.js, one connection' }
    return (['embedded', 'native'] as const).flatMap(side => [
      { name: `db.insert_1000_rows_ms.${side}`, value: Number(sides[side].insertMs.toFixed(2)), unit: 'ms', lowerIsBetter: true, context: { ...context, side } },
      { name: `db.indexed_lookup_us.${side}`, value: Number(sides[side].lookupUs.toFixed(1)), unit: 'us', lowerIsBetter: true, context: { ...context, side } },
    ])
  }
  finally {
    await embedded.close()
    await native.close()
  }
}
