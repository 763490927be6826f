import { expect, it } from 'vitest'
import { describeOnBothDatabases } from '../helpers/databases'
import { recordAudit } from '#db/audit'
import { migrateDatabase } from '#db/migrate'
import { eq, sql as raw } from 'drizzle-orm'
import { hubUsers } from '#db/schema/index'

describeOnBothDatabases('database', (database) => {
  it('has pgvector and the foundation tables', async () => {
    const { sql: q } = database()
    const [ext] = await q<{ extversion: string }[]>`select extversion from pg_extension where extname = 'vector'`
    expect(ext?.extversion).toMatch(/^0\.[5-9]|^[1-9]/)
    const tables = await q<{ table_name: string }[]>`
      select table_name from information_schema.tables where table_schema = 'public' order by table_name`
    expect(tables.map(t => t.table_name)).toEqual(expect.arrayContaining(['clients', 'hub_audit', 'hub_users', 'ops_alerts', 'ops_automations', 'ops_cron_runs', 'ops_locks']))
  })

  it('re-applying the migrations changes nothing', async () => {
    const { sql: q } = database()
    const before = await q`select count(*)::int as n from drizzle.__drizzle_migrations`
    await migrateDatabase(database())
    const after = await q`select count(*)::int as n from drizzle.__drizzle_migrations`
    expect(after[0]!.n).toBe(before[0]!.n)
  })

  it('serves an HNSW cosine index on vector(1024) and a generated french tsvector', async () => {
    const { sql: q } = database()
    await q.begin(async (tx) => {
      await tx`create table probe_docs (
        id serial primary key, body text not null, embedding vector(1024) not null,
        body_tsv tsvector generated always as (to_tsvector('french', body)) stored)`
      await tx`create index probe_docs_embedding_hnsw on probe_docs using hnsw (embedding vector_cosine_ops)`
      await tx`create index probe_docs_tsv_gin on probe_docs using gin (body_tsv)`
      const vector = (hot: number) => `[${Array.from({ length: 1024 }, (_, i) => (i === hot ? 1 : 0.001)).join(',')}]`
      await tx`insert into probe_docs (body, embedding) values
        ('Les chevaux mangent de l''avoine', ${vector(1)}::vector),
        ('Le déploiement a échoué en préproduction', ${vector(2)}::vector)`
      await tx`set local enable_seqscan = off`
      const plan = await tx.unsafe(`explain select id from probe_docs order by embedding <=> '${vector(2)}'::vector limit 1`)
      expect(JSON.stringify(plan)).toContain('probe_docs_embedding_hnsw')
      const [nearest] = await tx.unsafe(`select body from probe_docs order by embedding <=> '${vector(2)}'::vector limit 1`)
      expect(nearest!.body).toContain('déploiement')
      const lexical = await tx`select body from probe_docs where body_tsv @@ plainto_tsquery('french', 'un cheval')`
      expect(lexical.map(r => r.body)).toEqual(['Les chevaux mangent de l\'avoine'])
      const stems = await tx`select body_tsv::text as tsv from probe_docs order by id`
      expect(stems[0]!.tsv).toContain('\'cheval\'')
      throw new RollbackProbe()
    }).catch((error) => {
      if (!(error instanceof RollbackProbe)) throw error
    })
  })

  it('keeps hub_audit append-only', async () => {
    const { db, sql: q } = database()
    await recordAudit(db, { actor: 'test', action: 'probe' })
    await expect(q`update hub_audit set action = 'rewritten'`).rejects.toThrow(/append-only/)
    await expect(q`delete from hub_audit`).rejects.toThrow(/append-only/)
    const rows = await q`select action from hub_audit where actor = 'test'`
    expect(rows.map(r => r.action)).toEqual(['probe'])
  })

  it('prepares drizzle\'s parametrised queries, in and out of a transaction, and keeps simple ones simple', async () => {
    const { db } = database()
    const probe = 'prepared-probe@example.test'
    const prepared = await db.transaction(async (tx) => {
      expect(await tx.select({ id: hubUsers.id }).from(hubUsers).where(eq(hubUsers.email, probe))).toEqual([])
      return tx.execute<{ statement: string }>(raw`select statement from pg_prepared_statements`)
    })
    expect(prepared.map(row => row.statement).filter(text => text.includes('"hub_users"') && text.includes('$1')).length).toBeGreaterThan(0)
    // Without parameters, text with two statements still runs (a simple query cannot be prepared).
    await expect(db.execute(raw.raw('select 1; select 2'))).resolves.toBeDefined()
  })

  it('plans every prepared statement with its values (no generic plan after five runs)', async () => {
    const { db } = database()
    const [row] = await db.execute<{ mode: string }>(raw`select current_setting('plan_cache_mode') as mode`)
    expect(row!.mode).toBe('force_custom_plan')
  })
})

class RollbackProbe extends Error {}
