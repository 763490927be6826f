// The operator's approvals during the soak: every message waiting in `awaiting_approval` is
// approved, so the strangers' mails of the soak go on to spawns. With --hub-url, through the
// hub's HTTP server (signed in as the soak's operator, POST …/approve, the route a person's
// click makes): a killed hub answers nothing until it is back, and the approvals wait. Without
// it (no build of the hub), through decideApproval, the core call that route makes.
// A process of its own, killed like the others.
//   node --import tsx tests/soak/approver.ts --interval-ms M [--hub-url URL]
import { parseArgs } from 'node:util'
import { sql } from 'drizzle-orm'
import { openDatabase } from '#db/client'
import { decideApproval } from '#layers/atlas/core/approval'

const { values } = parseArgs({ options: { 'interval-ms': { type: 'string' }, 'hub-url': { type: 'string' } } })
const interval = Number(values['interval-ms'] ?? 1000)
const hubUrl = values['hub-url']
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 2 })
const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), ...line })}\n`)
let stopping = false
process.once('SIGTERM', () => {
  stopping = true
})

let cookie = ''
async function signIn(url: string): Promise<void> {
  const response = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: process.env.SOAK_OPERATOR_EMAIL, password: process.env.SOAK_OPERATOR_PASSWORD }),
  })
  if (response.status !== 200) throw new Error(`sign-in answered ${response.status}: ${(await response.text()).slice(0, 200)}`)
  cookie = response.headers.getSetCookie().map(c => c.split(';')[0]).join('; ')
}

/** One approval through the hub; a 409 (decided meanwhile, or no longer waiting) is an answer too. */
async function approveOverHttp(url: string, messageId: number): Promise<unknown> {
  if (!cookie) await signIn(url)
  const response = await fetch(`${url}/api/atlas/messages/${messageId}/approve`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: '{}' })
  if (response.status === 401) cookie = ''
  if (response.status !== 200 && response.status !== 409) throw new Error(`approve #${messageId} answered ${response.status}: ${(await response.text()).slice(0, 200)}`)
  return { status: response.status }
}

while (!stopping) {
  try {
    const waiting = await database.db.execute<{ message_id: number }>(sql`select message_id::int from atlas_inbox where status = 'awaiting_approval' order by message_id limit 20`)
    for (const row of waiting) {
      const decided = hubUrl ? await approveOverHttp(hubUrl, row.message_id) : await decideApproval(database.db, row.message_id, 'approve', 'soak-operator')
      say({ message: row.message_id, via: hubUrl ? 'hub' : 'core', decided })
    }
  }
  catch (error) {
    // The hub or the database is down (killed, coming back): said, and tried again next round.
    say({ failed: (error as Error).message, cause: String((error as { cause?: unknown }).cause ?? '') })
  }
  await new Promise(resolve => setTimeout(resolve, interval))
}
await database.close()
