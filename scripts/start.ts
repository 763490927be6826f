// npm start: the embedded database (unless DATABASE_URL), migrations, the first founder
// account, the hub on port 3000 (built first when needed) and the crontab supervisor.
// Ctrl-C stops everything: automates, the hub server, then the database.
//   npm start -- [--port N] [--dev] [--no-supervisor] [--crontab FILE]
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { join } from 'node:path'
import { defaultDataDir, openDatabase, redactUrl } from '#db/client'
import { migrateDatabase } from '#db/migrate'
import { countFounders, ensureFirstFounder } from '#server/core/users'
import { seedAgents } from '#layers/agents/core/seed'
import { seedBuiltInSkills } from '#layers/skills/core/builtins'
import { DEFAULT_CRONTAB, readCrontab, startSupervisor } from '#automates/supervisor'
import { runCli, UsageError } from './lib/cli'
import { checkPortFree } from './lib/port'
import { checkHubSettings } from './lib/hub-settings'
import { sessionSecret } from './lib/session-secret'
import { buildHub, buildIsCurrent } from './lib/build'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

function log(line: string) {
  process.stdout.write(`[synedre] ${line}\n`)
}

function portTaken(port: number): UsageError {
  return new UsageError(
    `Port ${port} is already in use: another program, or another hub, took it while this one was starting.`,
    'Stop that program, or start the hub on another port (--port or PORT).',
    1,
  )
}

/**
 * Waits for this start's own server: the port was free when checked, but another program can
 * take it while the database opens. Its answers must not pass for ours (the health route echoes
 * the instance id it was started with), and our server, refused the port, ends at once.
 */
async function waitForHealth(
  url: string,
  listen: { port: number, host: string },
  child: ChildProcess,
  instance: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      const taken = await checkPortFree(listen.port, listen.host).then(() => false, () => true)
      throw taken ? portTaken(listen.port) : new Error(`the hub server exited with code ${child.exitCode} while starting`)
    }
    let answering: string | null | undefined
    let ok = false
    try {
      const response = await fetch(`${url}/api/health`)
      answering = response.headers.get('x-hub-instance')
      ok = response.ok
    }
    catch {
      // Not listening yet.
    }
    if (answering !== undefined && answering !== instance) throw portTaken(listen.port)
    if (ok) return
    await new Promise(resolve => setTimeout(resolve, 250))
  }
  throw new Error(`the hub did not answer on ${url}/api/health within ${timeoutMs / 1000} s`)
}

function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs)
    child.once('exit', () => {
      clearTimeout(force)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

runCli(async () => {
  const { values } = parseArgs({
    options: { 'port': { type: 'string' }, 'dev': { type: 'boolean' }, 'no-supervisor': { type: 'boolean' }, 'crontab': { type: 'string' } },
  })
  const port = Number(values.port ?? process.env.PORT ?? 3000)
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`"${values.port ?? process.env.PORT}" is not a port number`, 'Give a port between 1 and 65535 (--port or PORT).')
  const host = process.env.HOST || '0.0.0.0'
  await checkPortFree(port, host).catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(
      `Port ${port} is already in use (${error.code ?? error.message}); another program, or another hub, is listening there.`,
      `Stop that program, or start the hub on another port: PORT=${port + 1} npm start.`,
      1,
    )
  })

  // Checked before anything is opened or written, like the port.
  const crontabFile = values.crontab ?? DEFAULT_CRONTAB
  if (!values['no-supervisor']) readCrontab(crontabFile)
  checkHubSettings(process.env)

  const dataDir = defaultDataDir()
  // Ctrl-C reaches the launcher more than once (the terminal signals the whole group, npm
  // forwards it again, people press twice): every signal after the first is absorbed, so
  // the shutdown below always runs to its end, the database closed and its owner file removed.
  let signals = 0
  let requestStop = () => {}
  const stopRequested = new Promise<void>(resolve => requestStop = resolve)
  const onSignal = () => {
    if (++signals > 1) log('already stopping: the database is being closed…')
    requestStop()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir, max: 5 })
  let server: ChildProcess | undefined
  let supervisor: Awaited<ReturnType<typeof startSupervisor>> | undefined
  let stopping: Promise<void> | undefined
  const shutdown = () => stopping ??= (async () => {
    log('stopping…')
    await supervisor?.stop()
    if (server) await stopChild(server)
    await database.close()
    log('stopped; the database is closed.')
  })()

  try {
    log(database.kind === 'embedded' ? `embedded database in ${join(dataDir, 'pglite')}` : `database ${redactUrl(database.url)}`)
    await migrateDatabase(database)
    const roster = await seedAgents(database.db)
    await seedBuiltInSkills(database.db)
    if (roster.inserted || roster.updated) log(`agent roster: ${roster.inserted} added, ${roster.updated} updated`)
    const founder = await ensureFirstFounder(database.db, { email: process.env.HUB_ADMIN_EMAIL, password: process.env.HUB_ADMIN_PASSWORD })
    if (founder) log(`founder account created for ${founder.email}`)
    else if (await countFounders(database.db) === 0) {
      log('no founder account yet: create one with `npm run user:create -- --email you@studio.example --role founder`, or set HUB_ADMIN_EMAIL and HUB_ADMIN_PASSWORD.')
    }

    const instance = randomBytes(8).toString('hex')
    const env = {
      ...process.env,
      HUB_INSTANCE_ID: instance,
      DATABASE_URL: database.url,
      NUXT_SESSION_PASSWORD: sessionSecret(dataDir),
      PORT: String(port),
      HOST: host,
      NITRO_PORT: String(port),
      NITRO_HOST: host,
    }
    if (values.dev) {
      server = spawn(process.execPath, [join(ROOT, 'node_modules/nuxt/bin/nuxt.mjs'), 'dev', '--port', String(port)], { cwd: ROOT, env, stdio: 'inherit' })
    }
    else {
      if (!buildIsCurrent(ROOT)) {
        log('building the hub (first start or sources changed; about 30 s)…')
        await buildHub(ROOT)
      }
      server = spawn(process.execPath, [join(ROOT, '.output/server/index.mjs')], { cwd: ROOT, env, stdio: 'inherit' })
    }
    const url = `http://localhost:${port}`
    await waitForHealth(url, { port, host }, server, instance, values.dev ? 180_000 : 60_000)

    if (!values['no-supervisor']) {
      supervisor = await startSupervisor({ db: database.db, databaseUrl: database.url, crontabFile, log })
      for (const { automation, next } of supervisor.nextRuns()) log(`automate ${automation}: next run ${next?.toISOString() ?? 'never'}`)
    }
    log(`hub ready at ${url}`)

    const exitCode = await new Promise<number>((resolve) => {
      void stopRequested.then(() => resolve(0))
      server!.once('exit', (code) => {
        if (!stopping && !signals) log(`the hub server stopped unexpectedly (exit ${code}).`)
        resolve(stopping || signals ? 0 : 1)
      })
    })
    await shutdown()
    return exitCode
  }
  catch (error) {
    await shutdown()
    throw error
  }
})
