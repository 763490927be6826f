// The database, both sides in one run: the embedded PGlite (over its loopback socket, as
// the hub uses it) and the native PostgreSQL, through the same postgres.js path.
import type { Database } from '#db/connection'
import { embeddedBenchDatabase, nativeBenchDatabase } from './databases'
import { median, sample, sized, type BenchFigure } from './lib'

// BENCH_SIZE=tiny (bench/lib.ts): 2 rounds (the first is a warm-up) of 100 rows, 20 lookups, 10 reads a reader.
const ROUNDS = sized(7, 2)
const ROWS = sized(1000, 100)
const LOOKUPS = sized(500, 20)

const READERS = 4
const READS_PER_READER = sized(300, 10)

/** The hub's shape of read: several connections reading by primary key at once. */
async function concurrentReadsPerSecond(database: Database): Promise<number> {
  const { sql } = database
  const start = process.hrtime.bigint()
  await Promise.all([...Array(READERS)].map(async (_, reader) => {
    for (let i = 0; i < READS_PER_READER; i++) await sql`select label from bench_rows where id = ${((reader * 7919 + i * 31) % ROWS) + 1}`
  }))
  return (READERS * READS_PER_READER) / (Number(process.hrtime.bigint() - start) / 1e9)
}

async function measure(database: Database): Promise<{ insertMs: number, lookupUs: number, readsPerSecond: number }> {
  const { sql } = database
  await sql`create table bench_rows (id serial primary key, label text not null, payload jsonb not null)`
  const insertRounds: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    await sql`truncate bench_rows restart identity`
    const start = process.hrtime.bigint()
    await sql.begin(async (tx) => {
      for (let i = 0; i < ROWS; i++) await tx`insert into bench_rows (label, payload) values (${`row ${i}`}, ${JSON.stringify({ i, round })}::jsonb)`
    })
    insertRounds.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  let i = 0
  const lookups = await sample(async () => {
    i = (i * 7919 + 13) % ROWS
    await sql`select label from bench_rows where id = ${i + 1}`
  }, LOOKUPS)
  const readsPerSecond = median([
    await concurrentReadsPerSecond(database),
    await concurrentReadsPerSecond(database),
    await concurrentReadsPerSecond(database),
  ])
  return { insertMs: median(insertRounds.slice(1)), lookupUs: median(lookups), readsPerSecond }
}

export default async function (): Promise<BenchFigure[]> {
  const embedded = await embeddedBenchDatabase('db', { max: READERS, migrate: false })
  const native = await nativeBenchDatabase('db', { max: READERS, migrate: false })
  try {
    const sides = { embedded: await measure(embedded), native: await measure(native) }
    const context = { rounds: ROUNDS, lookups: LOOKUPS, statement: `${ROWS} single-row INSERTs in one transaction; primary-key SELECT`, driver: 'postgres.js, one connection' }
    const readContext = { readers: READERS, readsPerReader: READS_PER_READER, statement: 'primary-key SELECT from several connections at once (the embedded socket resets the session each time the backend changes hands)' }
    return [
      ...(['embedded', 'native'] as const).flatMap(side => [
        { name: `db.insert_1000_rows_ms.${side}`, value: Number(sides[side].insertMs.toFixed(2)), unit: 'ms', lowerIsBetter: true, context: { ...context, side } },
        { name: `db.indexed_lookup_us.${side}`, value: Number(sides[side].lookupUs.toFixed(1)), unit: 'us', lowerIsBetter: true, context: { ...context, side } },
        { name: `db.indexed_reads_per_s.${side}`, value: Math.round(sides[side].readsPerSecond), unit: 'reads/s', lowerIsBetter: false, context: { ...readContext, side } },
      ]),
      // How many times slower the embedded default serves the same reads (1 = as fast as native).
      { name: 'db.embedded_vs_native_read_ratio', value: Number((sides.native.readsPerSecond / sides.embedded.readsPerSecond).toFixed(2)), unit: 'x', lowerIsBetter: true, context: readContext },
    ]
  }
  finally {
    await embedded.close()
    await native.close()
  }
}
