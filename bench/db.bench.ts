// The database, both sides in one run: the embedded PGlite (over its loopback socket, as
// the hub uses it) and the native PostgreSQL, through the same postgres.js path.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { connectDatabase, type Database } from '../db/connection'
import { startEmbeddedServer } from '../db/embedded'
import { median, sample, type BenchFigure } from './lib'

const NATIVE_ADMIN_URL = process.env.TEST_NATIVE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
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
  const dir = mkdtempSync(join(tmpdir(), 'synedre-bench-'))
  const server = await startEmbeddedServer(dir)
  const embedded = await connectDatabase(server.url, { max: 1, kind: 'embedded' })
  const name = `synedre_bench_${process.pid}`
  const admin = postgres(NATIVE_ADMIN_URL, { max: 1, onnotice: () => {} })
  await admin.unsafe(`drop database if exists "${name}"`)
  await admin.unsafe(`create database "${name}"`)
  const nativeUrl = new URL(NATIVE_ADMIN_URL)
  nativeUrl.pathname = `/${name}`
  const native = await connectDatabase(nativeUrl.toString(), { max: 1 })
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
    await server.close()
    await native.close()
    await admin.unsafe(`drop database if exists "${name}" with (force)`)
    await admin.end()
    rmSync(dir, { recursive: true, force: true })
  }
}
