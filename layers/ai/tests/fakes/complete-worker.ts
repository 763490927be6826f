// A second process calling the AI facade as an automate does (its own facade, its own copy
// of the routing table): one `complete(auto)` per feature read on stdin, one JSON line out
// per call with the provider and model that answered. DATABASE_URL and the providers' keys
// and base URLs come from the environment.
import { createInterface } from 'node:readline'
import { openDatabase } from '#db/client'
import { createAiFacade } from '../../core/facade'

const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 2 })
const ai = createAiFacade({ env: process.env, db: database.db, log: line => process.stderr.write(`${line}\n`) })
process.stdout.write('ready\n')
for await (const line of createInterface({ input: process.stdin })) {
  const feature = line.trim()
  if (!feature) continue
  const result = await ai.complete({ feature, prompt: 'ping' })
  process.stdout.write(`${JSON.stringify({ feature, provider: result.provider, model: result.model })}\n`)
}
await ai.flush()
await database.close()
