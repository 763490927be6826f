// The embedded database as a process of its own for the soak: PGlite behind the project's
// socket server (startEmbeddedServer, what `npm start` opens when DATABASE_URL is unset), on
// a fixed loopback port so every client's DATABASE_URL still points at it after a restart.
//   node --import tsx tests/soak/embedded-db.ts --data-dir DIR --port N
import { parseArgs } from 'node:util'
import { startEmbeddedServer } from '#db/embedded'

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, 'port': { type: 'string' } } })
if (!values['data-dir'] || !values.port) throw new Error('usage: embedded-db.ts --data-dir DIR --port N')
const server = await startEmbeddedServer(values['data-dir'], { port: Number(values.port), log: line => process.stdout.write(`${line}\n`) })
process.stdout.write(`[embedded-db] serving ${values['data-dir']} on 127.0.0.1:${values.port} (pid ${process.pid})\n`)
await new Promise<void>(resolve => process.once('SIGTERM', () => resolve()))
await server.close()
process.stdout.write('[embedded-db] closed\n')
