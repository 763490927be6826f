// The embedded database's socket as a hostile or careless local client meets it: session
// settings that must not leak, a transaction left open, a wrong password, loose modes.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startEmbeddedServer, type EmbeddedServer } from '#db/embedded'
import { TESTS_TMP } from '../helpers/database-config'

const IDLE_MS = 600
let server: EmbeddedServer
let dataDir: string
const lines: string[] = []
const clients: postgres.Sql[] = []
const client = (url = server.url, onclose?: () => void) => {
  const sql = postgres(url, { max: 1, onnotice: () => {}, onclose })
  clients.push(sql)
  return sql
}

beforeAll(async () => {
  dataDir = join(mkdtempSync(join(TESTS_TMP, 'socket-')), 'data')
  // A data folder as a careless copy leaves it: readable by everyone.
  mkdirSync(dataDir, { recursive: true, mode: 0o755 })
  chmodSync(dataDir, 0o755)
  writeFileSync(join(dataDir, 'notes.txt'), 'x', { mode: 0o666 })
  chmodSync(join(dataDir, 'notes.txt'), 0o666)
  server = await startEmbeddedServer(dataDir, { log: line => lines.push(line), env: { EMBEDDED_IDLE_TX_TIMEOUT_MS: String(IDLE_MS) } })
  const hub = client()
  await hub`create table inbox (id int primary key, subject text)`
  await hub`insert into inbox values (1, 'hello'), (2, 'world')`
})

afterAll(async () => {
  await Promise.all(clients.map(sql => sql.end({ timeout: 1 }).catch(() => {})))
  await server?.close()
})

describe('the embedded socket', () => {
  it('keeps each client\'s session settings to itself', async () => {
    const hub = client()
    const other = client()
    const [before] = await hub`show search_path`
    await other`set search_path = ''`
    await other`set statement_timeout = 1`
    await other`set time zone 'Pacific/Kiritimati'`
    // A setting changed from a SELECT: plain reads skip the reset between clients, this one does not.
    await other`select set_config('work_mem', '64kB', false)`
    await other.unsafe('prepare mine as select 42')
    await other`create temporary table scratch (x int)`
    expect(await hub`select subject from inbox where id = ${1}`).toEqual([{ subject: 'hello' }])
    expect((await hub`show search_path`)[0]!.search_path).toBe(before!.search_path)
    expect((await hub`show statement_timeout`)[0]!.statement_timeout).toBe('0')
    expect((await hub`show time zone`)[0]!.TimeZone).not.toBe('Pacific/Kiritimati')
    expect((await hub`show work_mem`)[0]!.work_mem).not.toBe('64kB')
    // The reset between clients keeps the sessions' own settings (db/session-settings.ts).
    expect((await hub`show plan_cache_mode`)[0]!.plan_cache_mode).toBe('force_custom_plan')
    await expect(hub.unsafe('execute mine')).rejects.toThrow(/does not exist/)
    await expect(hub`select * from scratch`).rejects.toThrow(/does not exist/)
    // A slow query is not cut by the other client's 1 ms timeout.
    expect((await hub`select count(*)::int as n from pg_sleep(0.05), inbox`)[0]!.n).toBe(2)
    // Settings made inside a transaction hold for that transaction.
    const [inside] = await other.begin(async tx => tx`set local time zone 'Asia/Tokyo'`.then(() => tx`show time zone`))
    expect(inside!.TimeZone).toBe('Asia/Tokyo')
  })

  it('keeps prepared statements apart: two clients with the same statement names', async () => {
    const a = client()
    const b = client()
    // postgres.js names its statements per connection the same way; both run interleaved.
    const runs = await Promise.all([...Array(20)].map((_, i) => (i % 2 ? a : b)`select subject from inbox where id = ${1 + (i % 2)}`))
    expect(runs.map(rows => rows[0]!.subject)).toEqual([...Array(20)].map((_, i) => (i % 2 ? 'world' : 'hello')))
  })

  it('delivers large answers to clients reading at once intact (each answer copied before the socket sends it)', async () => {
    const a = client()
    const b = client()
    const rows = (sql: postgres.Sql, tag: string) => sql`select ${tag} || repeat('x', 1000) || g as line from generate_series(1, 3000) g`
    const [fromA, fromB] = await Promise.all([rows(a, 'a'), rows(b, 'b')])
    for (const [tag, result] of [['a', fromA], ['b', fromB]] as const) {
      expect(result.length).toBe(3000)
      expect(result.every((row, i) => row.line === `${tag}${'x'.repeat(1000)}${i + 1}`)).toBe(true)
    }
  })

  it('answers an error anywhere in a sequence (parse, bind, execute) and goes on, for that client and the others', async () => {
    // A whole sequence reaches PGlite in one call: its error must still reach the client.
    const a = client()
    const b = client()
    await expect(a`selec ${1}`).rejects.toThrow(/syntax error/)
    await expect(a`select ${'abc'}::int as n`).rejects.toThrow(/invalid input syntax/)
    await expect(a`select case when id = ${2} then 1 / 0 else id end as n from inbox order by id`).rejects.toThrow(/division by zero/)
    await expect(a.begin(async (tx) => {
      await tx`insert into inbox values (${3}, 'three')`
      await tx`select 1 / ${0}::int`
    })).rejects.toThrow(/division by zero/)
    const [[after], [other]] = await Promise.all([a`select count(*)::int as n from inbox`, b`select subject from inbox where id = ${2}`])
    expect(after!.n).toBe(2)
    expect(other!.subject).toBe('world')
    // Errors and answers interleaved from two clients at once, each getting its own.
    const runs = await Promise.allSettled([...Array(20)].map((_, i) => (i % 2 ? a`select 1 / ${i % 4 === 1 ? 0 : 1}::int as n` : b`select ${i}::int as n`)))
    runs.forEach((run, i) => {
      if (i % 4 === 1) expect(run.status).toBe('rejected')
      else expect(run.status === 'fulfilled' && run.value[0]!.n).toBe(i % 2 ? 1 : i)
    })
  })

  it('rolls back a transaction left idle and disconnects its client, the others answered meanwhile', async () => {
    const hub = client()
    let closedByServer!: () => void
    const disconnected = new Promise<boolean>(resolve => closedByServer = () => resolve(true))
    const idle = client(server.url, () => closedByServer())
    const reserved = await idle.reserve()
    await reserved`begin`
    await reserved`insert into inbox values (3, 'never committed')`
    // Someone else asks while the transaction holds the backend: answered once the idle
    // timeout set here rolled it back, well before the default's 5 s (slack for a busy machine).
    const started = Date.now()
    expect((await hub`select count(*)::int as n from inbox`)[0]!.n).toBe(2)
    expect(Date.now() - started).toBeLessThan(IDLE_MS + 3000)
    // Its client was disconnected (its socket closed by the server): the transaction went with it.
    // No query is sent on it afterwards: postgres.js writes a reserved connection's query to a
    // socket it has already dropped, an uncaught TypeError.
    const closed = await Promise.race([disconnected, new Promise<boolean>(resolve => setTimeout(() => resolve(false), 3000))])
    expect(closed).toBe(true)
    expect(lines.some(line => /rolled back the transaction of 127\.0\.0\.1:\d+, idle for 600 ms/.test(line)), lines.join('\n')).toBe(true)
    expect((await hub`select count(*)::int as n from inbox where id = 3`)[0]!.n).toBe(0)
  })

  it('refuses a wrong password, and no password at all', async () => {
    const wrong = new URL(server.url)
    wrong.password = 'guessed'
    await expect(client(wrong.toString())`select 1`).rejects.toMatchObject({ code: '28P01' })
    wrong.password = ''
    await expect(client(wrong.toString())`select 1`).rejects.toThrow()
    expect(lines.some(line => line.includes('refused a connection from 127.0.0.1:'))).toBe(true)
  })

  it('keeps the data folder private: 0700 folders, 0600 files, fixed with a log line', () => {
    expect(statSync(dataDir).mode & 0o777).toBe(0o700)
    const walk = (path: string): void => {
      const stat = statSync(path)
      expect(stat.mode & 0o777, path).toBe(stat.isDirectory() ? 0o700 : 0o600)
      if (stat.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry))
    }
    walk(dataDir)
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(['embedded-password', 'embedded-owner.json', 'pglite']))
    expect(lines.some(line => line.startsWith('data folder permissions fixed: 2 entries'))).toBe(true)
  })
})
