// Issue 33, Deliver 3: "a second tenant's spawn folders and logs unreadable". A second tenant's
// spawn is planted (its folder with a kept work folder, home, result and scratch files, its
// stream log, its prompt scratch), an "other checkout" in a /srv-like tree and a file under
// /opt, every one holding a marker, all world-readable (the worst case: the mount wall alone
// must hold). The hostile stand-in agent, in the first spawn's sandbox, lists and reads each
// of them, then builds (node, git, sh): every attempt at the planted files fails, every build
// works, for srt and bwrap. Then the uid wall alone: one spawn's folder is unreadable from
// another spawn's uid without any sandbox, and a kept folder is handed back to the worker.
import { execFileSync, spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { HUB_ROOT } from '#layers/spawn/core/config'
import { DEFAULT_AGENT_UIDS } from '#layers/spawn/core/spawn-uid'
import { spawnUserFor } from '#layers/spawn/core/spawn-user'
import { prepareWorkspace } from '#layers/spawn/core/workspace'
import { startEngine, type Engine } from '../fixtures/engine'
import { plantSecondTenant, type Planted } from '../fixtures/second-tenant'
import { classifiedMessage, inbox, spawnsOf } from '../fixtures/seed'

const isRoot = process.getuid?.() === 0
const MARKER = `other-tenant-marker-${randomUUID()}`

const BUILD = ['node -e "console.log(6 * 7)"', 'git status --porcelain >/dev/null && git log --format=%s -1', 'echo built > build.txt && cat build.txt', 'id -u']

describeOnBothDatabases('A second tenant\'s spawn, as seen from the first one\'s sandbox', (database) => {
  let engine: Engine
  let planted: Planted
  beforeAll(async () => {
    engine = await startEngine(database().db, database().url, { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', SPAWN_KEEP_WORKDIR: 'always' })
    planted = plantSecondTenant(engine, MARKER)
  })
  afterAll(async () => {
    for (const dir of planted?.cleanup ?? []) rmSync(dir, { recursive: true, force: true })
    await engine?.close()
  })

  it.each(['srt', 'bwrap'] as const)('%s: its folders, logs, scratch, an other checkout and /opt are not there; the agent still builds', async (sandbox) => {
    const { db } = database()
    const id = await classifiedMessage(db, { intent: 'question' })
    await engine.cycle()
    const reads = [...planted.files, '/work/main/package.json', '/work/shared/ARCHITECTURE.md', '/etc/hostname', '/root/.bashrc']
    const work = await engine.drain({
      env: {
        ...engine.env, STAND_IN_VARIANT: 'hostile', STAND_IN_LINGER_MS: '0',
        STAND_IN_HOSTILE_READS: reads.join(','), STAND_IN_HOSTILE_LISTS: [...planted.dirs, ...Object.keys(planted.parents), '/work', HUB_ROOT].join(','), STAND_IN_HOSTILE_BUILD: BUILD.join(';;'),
      },
      config: { ...engine.config, sandbox },
    })
    expect(work.outcomes.find(o => o.messageId === id)?.outcome).toBe('actioned')
    expect((await inbox(db, id)).status).toBe('actioned')
    const [spawn] = await spawnsOf(db, id)
    const report = JSON.parse((spawn!.result as { summary: string }).summary) as {
      reads: Record<string, string>
      lists: Record<string, string>
      builds: Record<string, string>
    }

    // Every read of a planted file fails: the file is not there (or not its to read).
    for (const target of reads) expect(report.reads[target], target).toMatch(/^(ENOENT|EACCES|EPERM)$/)
    // The planted folders cannot be listed; their parents, where listed, show none of them.
    for (const dir of planted.dirs) expect(report.lists[dir], dir).toMatch(/^(ENOENT|EACCES|EPERM)$/)
    for (const [parent, name] of Object.entries(planted.parents)) expect(report.lists[parent], parent).not.toContain(name)
    // Of the /work tree, only the way to the few readable files (the stand-in under the hub's
    // checkout, srt's helpers in node_modules): no other checkout, nothing shared.
    expect(report.lists['/work']).not.toMatch(/shared|wt-keys|wt-chaos/)
    // (node_modules shows when srt's helpers live in this checkout, not behind a link elsewhere.)
    expect(report.lists[HUB_ROOT]).toMatch(/^listed \[/)
    const shown = JSON.parse(report.lists[HUB_ROOT]!.slice('listed '.length)) as string[]
    expect(shown.filter(name => name !== 'layers' && name !== 'node_modules')).toEqual([])
    // The marker reached nothing the agent wrote: its result, its stream, its folder.
    const folder = join(engine.spawnRoot, `spawn-${spawn!.id}`)
    expect(JSON.stringify(spawn!.result)).not.toContain(MARKER)
    expect(readFileSync(spawn!.logPath!, 'utf8')).not.toContain(MARKER)

    // Its toolchain is there: Node, git in its checkout, a shell writing in its folder.
    expect(report.builds[BUILD[0]!]).toBe('ok 42')
    expect(report.builds[BUILD[1]!]).toBe('ok init')
    expect(report.builds[BUILD[2]!]).toBe('ok built')
    expect(readFileSync(join(folder, 'work', 'build.txt'), 'utf8')).toBe('built\n')
    if (isRoot) {
      // A uid of its own, freed after; the kept folder is the worker's again, 0700.
      const uid = Number(report.builds[BUILD[3]!]!.slice(3))
      expect(uid).toBeGreaterThanOrEqual(DEFAULT_AGENT_UIDS.first)
      expect(uid).toBeLessThanOrEqual(DEFAULT_AGENT_UIDS.last)
      expect(statSync(folder)).toMatchObject({ uid: 0 })
      expect(statSync(folder).mode & 0o777).toBe(0o700)
      expect(statSync(join(folder, 'work', 'build.txt')).uid).toBe(0)
      expect(readdirSync(join(engine.spawnRoot, '.uids')), engine.logs.filter(l => l.includes('uid')).join('\n')).toEqual([])
    }
  }, 120_000)
})

describe.skipIf(!isRoot)('the uid wall, without any sandbox', () => {
  let root: string
  beforeAll(() => {
    root = join('/tmp', `spawn-uids-${randomUUID()}`)
  })
  afterAll(() => {
    rmSync(root, { recursive: true, force: true })
  })

  /** Runs a shell command as this uid (no sandbox: only file permissions stand in the way). */
  function as(uid: number, command: string) {
    return spawnSync('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', '/bin/sh', '-c', command], { encoding: 'utf8' })
  }

  it('keeps one spawn\'s folder from another spawn\'s uid, and a kept folder from every spawn once handed back', async () => {
    const logs: string[] = []
    const config = { spawnRoot: root, agentUids: { first: 2_000_100_000, last: 2_000_100_009 }, agentUser: 'nobody', killGraceMs: 100 }
    const [first, second] = await Promise.all(['first', 'second'].map(id => spawnUserFor({ config, log: line => void logs.push(line) }, id, true)))
    expect(first!.user!.uid).not.toBe(second!.user!.uid)
    const a = await prepareWorkspace({ root, spawnId: 'first', repository: null, owner: first!.user })
    const b = await prepareWorkspace({ root, spawnId: 'second', repository: null, owner: second!.user })
    writeFileSync(join(a.workDir, 'client-mail.txt'), `${MARKER}\n`, { mode: 0o644 })
    execFileSync('chown', [`${first!.user!.uid}:${first!.user!.uid}`, join(a.workDir, 'client-mail.txt')])
    expect(statSync(a.dir)).toMatchObject({ uid: first!.user!.uid })
    expect(statSync(a.dir).mode & 0o777).toBe(0o700)
    // Its own uid reads its folder; the other spawn's uid cannot even enter it.
    expect(as(first!.user!.uid, `cat ${a.workDir}/client-mail.txt`).stdout).toContain(MARKER)
    const denied = as(second!.user!.uid, `cat ${a.workDir}/client-mail.txt; ls ${a.dir}`)
    expect(denied.stdout).not.toContain(MARKER)
    expect(denied.stderr).toMatch(/Permission denied/)
    // Handed back (kept as evidence): the worker's, unreadable to its former uid.
    expect(await first!.handBack(a)).toBe(true)
    expect(statSync(join(a.workDir, 'client-mail.txt')).uid).toBe(0)
    expect(as(first!.user!.uid, `cat ${a.workDir}/client-mail.txt`).stderr).toMatch(/Permission denied/)
    // Its uid is free again; the second spawn's, whose folder is kept and still its own, is not.
    await first!.end('kept')
    await second!.end('kept')
    expect(readdirSync(join(root, '.uids'))).toEqual([String(second!.user!.uid)])
    expect(logs.join('\n')).toMatch(/stays reserved, its kept folder is still its own/)
    expect(existsSync(b.workDir)).toBe(true)
  })
})
