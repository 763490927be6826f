// `npm start` as a person runs it: the embedded default, a restart, Ctrl-C, and every
// way it can be misconfigured (each: one clear message, non-zero exit, nothing written).
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { createServer as createHttpServer } from 'node:http'
import { spawn } from 'node:child_process'
import { join, dirname } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { PGlite } from '@electric-sql/pglite'
import { FOUNDER, signIn, startHub, tempDataDir, freePort } from '../helpers/hub'
import { runTs, startTs } from '../helpers/processes'
import { serveOverSocket } from '#db/embedded-socket'

function groupIsGone(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return false
  }
  catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

describe('npm start on the embedded default', () => {
  it('serves the hub, keeps data across a restart, and Ctrl-C stops everything cleanly', async () => {
    const hub = await startHub()
    expect(hub.output()).toContain('founder account created for founder@studio.test')
    expect(await (await fetch(`${hub.url}/api/health`)).json()).toEqual({ status: 'ok', database: 'ok' })
    const page = await fetch(`${hub.url}/login`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('Sign in to the hub')

    const created = await runTs('scripts/user-create.ts', ['--email', 'viewer@studio.test', '--role', 'viewer', '--password-stdin'], {
      env: { DATA_DIR: hub.dataDir }, input: 'viewer-password-123\n',
    })
    expect(created.code, created.output).toBe(0)

    const stopped = await hub.interrupt()
    expect(stopped.code, stopped.output).toBe(0)
    expect(stopped.output).toContain('stopped; the database is closed.')
    await new Promise(resolve => setTimeout(resolve, 300))
    expect(groupIsGone(hub.child.pid!)).toBe(true)
    expect(existsSync(join(hub.dataDir, 'embedded-owner.json'))).toBe(false)

    const again = await startHub({ dataDir: hub.dataDir, env: { HUB_ADMIN_EMAIL: '', HUB_ADMIN_PASSWORD: '' } })
    try {
      expect(again.output()).not.toContain('founder account created')
      await signIn(again.url, 'viewer@studio.test', 'viewer-password-123')
      await signIn(again.url, FOUNDER.email, FOUNDER.password)
    }
    finally {
      expect((await again.interrupt()).code).toBe(0)
    }
  })
})

describe('npm start after a crash, and Ctrl-C', () => {
  it('starts healthy when the owner file of a killed start names a live unrelated process, saying it removed it', async () => {
    const hub = await startHub({ args: ['--no-supervisor'] })
    process.kill(-hub.child.pid!, 'SIGKILL')
    await hub.exited
    const ownerPath = join(hub.dataDir, 'embedded-owner.json')
    const record = JSON.parse(readFileSync(ownerPath, 'utf8')) as { pid: number, url: string }
    expect(record.url).not.toMatch(/:[^/@]*@/) // no password in the owner file
    const unrelated = spawn('sleep', ['120'], { stdio: 'ignore' })
    try {
      writeFileSync(ownerPath, JSON.stringify({ ...record, pid: unrelated.pid }))
      const again = await startHub({ dataDir: hub.dataDir, args: ['--no-supervisor'], env: { HUB_ADMIN_EMAIL: '', HUB_ADMIN_PASSWORD: '' } })
      try {
        expect(again.output()).toContain(`removed the stale owner file ${ownerPath}: process ${unrelated.pid} is alive but is not our database`)
        expect(await (await fetch(`${again.url}/api/health`)).json()).toEqual({ status: 'ok', database: 'ok' })
        await signIn(again.url, FOUNDER.email, FOUNDER.password)
      }
      finally {
        expect((await again.interrupt()).code).toBe(0)
      }
    }
    finally {
      unrelated.kill()
    }
  }, 300_000)

  it('ends each of ten Ctrl-C (signalled twice, as terminal and npm both do) with the database closed', async () => {
    const dataDir = tempDataDir()
    for (let round = 0; round < 10; round++) {
      const hub = await startHub({ dataDir, args: ['--no-supervisor'], env: round ? { HUB_ADMIN_EMAIL: '', HUB_ADMIN_PASSWORD: '' } : {} })
      process.kill(-hub.child.pid!, 'SIGINT')
      setTimeout(() => {
        if (hub.child.exitCode === null) process.kill(-hub.child.pid!, 'SIGINT')
      }, 50)
      const stopped = await hub.exited
      expect(stopped.code, `round ${round}: ${stopped.output}`).toBe(0)
      expect(stopped.output, `round ${round}`).toContain('stopped; the database is closed.')
      expect(existsSync(join(dataDir, 'embedded-owner.json')), `round ${round}`).toBe(false)
    }
  }, 1_200_000)
})

describe('npm start refuses bad configuration', () => {
  const start = (env: NodeJS.ProcessEnv, args: string[] = [], spawnOptions: { uid?: number, gid?: number } = {}) =>
    runTs('scripts/start.ts', args, { env: { HOST: '127.0.0.1', ...env }, ...spawnOptions })

  it('port already in use', async () => {
    const port = await freePort()
    const blocker = createServer().listen(port, '127.0.0.1')
    await new Promise(resolve => blocker.once('listening', resolve))
    const dataDir = tempDataDir()
    try {
      const result = await start({ DATA_DIR: dataDir }, ['--port', String(port)])
      expect(result.code).toBe(1)
      expect(result.output).toContain(`Port ${port} is already in use`)
      expect(result.output).toContain(`fix: Stop that program, or start the hub on another port: PORT=${port + 1} npm start.`)
      expect(existsSync(dataDir)).toBe(false)
    }
    finally {
      blocker.close()
    }
  })

  it('a port taken while the hub starts: another server answering there is not taken for the hub', async () => {
    const port = await freePort()
    const dataDir = tempDataDir()
    const launcher = startTs('scripts/start.ts', ['--port', String(port), '--no-supervisor'], { env: { HOST: '127.0.0.1', DATA_DIR: dataDir } })
    // Past the port check, before the hub's server listens: another hub's health answer.
    await launcher.waitFor(/embedded database in/, 120_000)
    const other = createHttpServer((_, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok","database":"ok"}'))
    await new Promise<void>(resolve => other.listen(port, '127.0.0.1', resolve))
    try {
      const result = await launcher.exited
      expect(result.code).toBe(1)
      expect(result.output).toContain(`Port ${port} is already in use: another program, or another hub, took it while this one was starting.`)
      expect(result.output).not.toContain('hub ready')
      expect(result.output).toContain('stopped; the database is closed.')
    }
    finally {
      other.close()
    }
  }, 300_000)

  it('a wrong DATABASE_URL, without leaking its password', async () => {
    const dataDir = tempDataDir()
    const port = String(await freePort())
    const unreachable = await start({ DATA_DIR: dataDir, DATABASE_URL: 'postgres://synedre:s3cret-pw@127.0.0.1:1/synedre' }, ['--port', port])
    expect(unreachable.code).toBe(1)
    expect(unreachable.output).toContain('Cannot connect to the database at postgres://synedre:***@127.0.0.1:1/synedre')
    expect(unreachable.output).toContain('fix: Check DATABASE_URL')
    expect(unreachable.output).not.toContain('s3cret-pw')
    const garbage = await start({ DATA_DIR: dataDir, DATABASE_URL: 'mysql://nope' }, ['--port', port])
    expect(garbage.code).toBe(1)
    expect(garbage.output).toMatch(/Cannot connect to the database|not a valid PostgreSQL address/)
    expect(existsSync(dataDir)).toBe(false)
  })

  it('a PostgreSQL without pgvector', async () => {
    const plain = await PGlite.create()
    const server = await serveOverSocket(plain, { host: '127.0.0.1', port: 0, maxConnections: 4 })
    try {
      const result = await start({ DATA_DIR: tempDataDir(), DATABASE_URL: `postgres://postgres@127.0.0.1:${server.port}/postgres` }, ['--port', String(await freePort())])
      expect(result.code).toBe(1)
      expect(result.output).toContain('has no pgvector extension')
      expect(result.output).toContain('fix: Install pgvector')
      expect((await plain.query<{ n: number }>('select count(*)::int as n from pg_tables where schemaname = \'public\'')).rows[0]!.n).toBe(0)
    }
    finally {
      await server.stop()
      await plain.close()
    }
  })

  it('an unreadable data folder', async () => {
    const dataDir = tempDataDir()
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(join(dataDir, 'keep.txt'), 'precious')
    chmodSync(dataDir, 0o000)
    chmodSync(dirname(dataDir), 0o755)
    // As root every folder is readable: run the launcher as an unprivileged user instead.
    const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
    try {
      const result = await start({ DATA_DIR: dataDir, HOME: '/tmp' }, ['--port', String(await freePort())], asNobody)
      expect(result.code).toBe(1)
      expect(result.output).toContain(`The data folder ${dataDir} cannot be read and written`)
      expect(result.output).toContain('fix: Give the user running Synedre OS read and write access')
    }
    finally {
      chmodSync(dataDir, 0o755)
    }
    expect(readdirSync(dataDir)).toEqual(['keep.txt'])
    expect(readFileSync(join(dataDir, 'keep.txt'), 'utf8')).toBe('precious')
  })

  it('a crontab line that does not parse', async () => {
    const dataDir = tempDataDir()
    const crontab = join(dirname(dataDir), 'crontab')
    writeFileSync(crontab, '*/15 * * * * $SYNEDRE_HOME/scripts/automate lock-guardian\n*/15 * * *  $SYNEDRE_HOME/scripts/automate lock-guardian\n')
    const result = await start({ DATA_DIR: dataDir }, ['--port', String(await freePort()), '--crontab', crontab])
    expect(result.code).toBe(1)
    expect(result.output).toContain(`${crontab}:2: `)
    expect(result.output).toContain('fix: ')
    expect(existsSync(dataDir)).toBe(false)
  })

  it('a hub setting that does not parse', async () => {
    const dataDir = tempDataDir()
    const port = String(await freePort())
    const timeout = await start({ DATA_DIR: dataDir, HUB_STATEMENT_TIMEOUT_MS: '2s' }, ['--port', port])
    expect(timeout.code).toBe(1)
    expect(timeout.output).toContain('HUB_STATEMENT_TIMEOUT_MS is wrong')
    expect(timeout.output).toContain('fix: Set HUB_STATEMENT_TIMEOUT_MS to a whole number of milliseconds')
    const address = await start({ DATA_DIR: dataDir, HUB_PUBLIC_URL: 'hub.studio.example' }, ['--port', port])
    expect(address.code).toBe(1)
    expect(address.output).toContain('HUB_PUBLIC_URL is wrong')
    expect(existsSync(dataDir)).toBe(false)
  })

  afterAll(() => {})
})
