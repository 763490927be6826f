// The operator's approvals during the soak: every message waiting in `awaiting_approval` is
// approved through decideApproval, the core call the hub's approval route makes, so that the
// strangers' mails of the soak go on to spawns. A process of its own, killed like the others.
//   node --import tsx tests/soak/approver.ts --interval-ms M
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { openDatabase } from '#db/client'
import { decideApproval } from '#layers/atlas/core/approval'

const { values } = parseArgs({ options: { 'interval-ms': { type: 'string' } } })
const interval = Number(values['interval-ms'] ?? 1000)
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 2 })
let stopping = false
process.once('SIGTERM', () => {
  stopping = true
})
while (!stopping) {
  try {
    const waiting = await database.db.execute<{ message_id: number }>(sql`select message_id::int from atlas_inbox where status = 'awaiting_approval' order by message_id limit 20`)
    for (const row of waiting) {
      const decided = await decideApproval(database.db, row.message_id, 'approve', 'soak-operator')
      process.stdout.write(`${JSON.stringify({ message: row.message_id, decided })}\n`)
    }
  }
  catch (error) {
    process.stdout.write(`${JSON.stringify({ failed: (error as Error).message })}\n`)
  }
  await new Promise(resolve => setTimeout(resolve, interval))
}
await database.close()
