// The sandbox shows a list and hides the rest: the toolchain setting, the policy's mapping to
// srt's settings and to bubblewrap's arguments, and the per-spawn uids.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { readSpawnConfig } from '#layers/spawn/core/config'
import { bwrapArgs, confinedCommand, makeSrtRuntimeDir, srtSettings, toolchainMount, type SandboxPolicy } from '#layers/spawn/core/sandbox'
import { allocateSpawnUid, processesOfUid, readAgentUids, releaseSpawnUid, DEFAULT_AGENT_UIDS } from '#layers/spawn/core/spawn-uid'
import { defaultToolchain, nodePrefix, readToolchain, SYSTEM_TOOLCHAIN } from '#layers/spawn/core/toolchain'

const dirs: string[] = []
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-unit-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function policy(extra: Partial<SandboxPolicy> = {}): SandboxPolicy {
  return {
    mode: 'bwrap', workDir: '/spawns/spawn-a/work', homeDir: '/spawns/spawn-a/home', outDir: '/spawns/spawn-a/out', tmpDir: '/spawns/spawn-a/tmp',
    toolchain: ['/usr', '/etc/ssl', '/opt/node'], hidden: ['/srv/hub', '/spawns'], readable: ['/srv/hub/agent.mjs'],
    allowHosts: ['api.anthropic.com:443'], user: null, ...extra,
  }
}

/** bubblewrap's arguments as [option, ...operands] groups. */
function groups(args: string[]): string[][] {
  const arity: Record<string, number> = { '--ro-bind-try': 2, '--ro-bind': 2, '--bind': 2, '--symlink': 2, '--tmpfs': 1, '--dev': 1, '--proc': 1, '--chdir': 1, '--setenv': 2 }
  const out: string[][] = []
  for (let i = 0; i < args.length;) {
    const n = arity[args[i]!] ?? 0
    out.push(args.slice(i, i + 1 + n))
    i += 1 + n
  }
  return out
}

describe('the toolchain (SPAWN_TOOLCHAIN)', () => {
  it('defaults to the system\'s programs, a few /etc entries and this Node; never /etc, /opt, /home or /work whole', () => {
    const list = readToolchain({}, '/opt/node-22/bin/node')
    expect(list).toEqual(expect.arrayContaining(['/usr', '/bin', '/lib', '/lib64', '/etc/ssl', '/etc/passwd', '/etc/resolv.conf', '/etc/alternatives', '/opt/node-22']))
    for (const broad of ['/', '/etc', '/opt', '/home', '/root', '/work', '/srv', '/var', '/tmp']) expect(list).not.toContain(broad)
    // Host configuration that may hold credentials stays out.
    for (const secretive of ['/etc/npmrc', '/etc/gitconfig', '/etc/shadow']) expect(list).not.toContain(secretive)
    // A Node under /usr needs no entry of its own.
    expect(defaultToolchain('/usr/bin/node')).toEqual([...SYSTEM_TOOLCHAIN])
    expect(nodePrefix('/opt/node-22/bin/node')).toBe('/opt/node-22')
  })
  it('is replaced by SPAWN_TOOLCHAIN, `default` standing for the default list; / and relative paths are refused', () => {
    expect(readToolchain({ SPAWN_TOOLCHAIN: '/usr, /opt/php8/' }, '/usr/bin/node')).toEqual(['/usr', '/opt/php8'])
    expect(readToolchain({ SPAWN_TOOLCHAIN: 'default,/opt/php8' }, '/usr/bin/node')).toEqual([...SYSTEM_TOOLCHAIN, '/opt/php8'])
    expect(() => readToolchain({ SPAWN_TOOLCHAIN: '/usr,/' })).toThrow(/SPAWN_TOOLCHAIN: "\/" would show the agent the whole machine/)
    expect(() => readToolchain({ SPAWN_TOOLCHAIN: 'usr' })).toThrow(/SPAWN_TOOLCHAIN: expected absolute paths/)
  })
  it('is in the spawn configuration, with the spawns\' root, logs and scratch among the hidden folders', () => {
    const config = readSpawnConfig({ SPAWN_ROOT: '/var/spawns', SPAWN_LOG_DIR: '/var/spawn-logs', ATLAS_TMP_DIR: '/var/atlas-tmp' }, '/srv')
    expect(config.toolchain).toContain('/usr')
    expect(config.hiddenDirs).toEqual(expect.arrayContaining(['/var/spawns', '/var/spawn-logs', '/var/atlas-tmp']))
  })
})

describe('srt\'s settings for a policy', () => {
  it('denies / (every top-level folder the list does not cover) and the hidden folders; allows the toolchain, its own folders and the readable paths', () => {
    const { filesystem } = srtSettings(policy({ mode: 'srt' })) as { filesystem: Record<string, string[]> }
    expect(filesystem.denyRead).toEqual(['/', '/srv/hub', '/spawns'])
    expect(filesystem.allowRead).toEqual(['/usr', '/etc/ssl', '/opt/node', '/spawns/spawn-a/work', '/spawns/spawn-a/home', '/spawns/spawn-a/out', '/spawns/spawn-a/tmp', '/srv/hub/agent.mjs'])
    expect(filesystem.allowWrite).toEqual(['/spawns/spawn-a/work', '/spawns/spawn-a/home', '/spawns/spawn-a/out', '/spawns/spawn-a/tmp'])
  })
})

describe('srt\'s own folder for one run', () => {
  it('is its TMPDIR (short, for its proxy sockets) and is bound back into the sandbox after the tmpfs over /tmp', () => {
    const dir = makeSrtRuntimeDir(null)
    dirs.push(dir)
    expect(dir).toMatch(/^\/tmp\/srt-\w{6}$/)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    const { filesystem } = srtSettings(policy({ mode: 'srt' }), dir) as { filesystem: Record<string, string[]> }
    expect(filesystem.allowRead!.at(-1)).toBe(dir)
    const command = confinedCommand(policy({ mode: 'srt' }), '/usr/bin/agent', ['-p'], { TMPDIR: '/spawns/spawn-a/tmp' }, '/spawns/spawn-a/srt-settings.json', dir)
    expect(command.env.TMPDIR).toBe(dir)
    // The agent gets its own TMPDIR back inside.
    expect(command.args).toContain('TMPDIR=/spawns/spawn-a/tmp')
  })
})

describe('bubblewrap\'s arguments for a policy', () => {
  it('binds only the list into an empty root: no `--ro-bind / /`, the toolchain read-only, its own folders writable', () => {
    const args = groups(bwrapArgs(policy(), { PATH: '/usr/bin' }))
    expect(args).not.toContainEqual(['--ro-bind', '/', '/'])
    expect(args).not.toContainEqual(['--ro-bind-try', '/', '/'])
    for (const path of ['/usr', '/etc/ssl', '/opt/node']) expect(args).toContainEqual(['--ro-bind-try', path, path])
    for (const dir of ['work', 'home', 'out', 'tmp']) expect(args).toContainEqual(['--bind', `/spawns/spawn-a/${dir}`, `/spawns/spawn-a/${dir}`])
    expect(args).toContainEqual(['--tmpfs', '/tmp'])
    // Everything bound is the list, the agent's own folders, or a path of `readable` (when it exists).
    const bound = args.filter(a => ['--ro-bind-try', '--ro-bind', '--bind'].includes(a[0]!)).map(a => a[2])
    expect(bound.every(path => ['/usr', '/etc/ssl', '/opt/node'].includes(path!) || path!.startsWith('/spawns/spawn-a/'))).toBe(true)
  })
  it('keeps a hidden folder hidden under a listed one, and binds the readable exceptions after it', () => {
    const root = scratch()
    const hub = join(root, 'srv', 'hub')
    mkdirSync(hub, { recursive: true })
    writeFileSync(join(hub, 'agent.mjs'), '')
    const flat = bwrapArgs(policy({ toolchain: [join(root, 'srv')], hidden: [hub], readable: [join(hub, 'agent.mjs')] }), {})
    const args = groups(flat)
    const tmpfs = args.findIndex(a => a[0] === '--tmpfs' && a[1] === hub)
    const exception = args.findIndex(a => a[0] === '--ro-bind' && a[1] === join(hub, 'agent.mjs'))
    expect(tmpfs).toBeGreaterThan(args.findIndex(a => a[1] === join(root, 'srv')))
    expect(exception).toBeGreaterThan(tmpfs)
    // A hidden folder outside the list needs no mount at all: it is not there.
    expect(groups(bwrapArgs(policy({ hidden: [hub] }), {}))).not.toContainEqual(['--tmpfs', hub])
  })
  it('keeps a link whose target the list covers a link (/bin → usr/bin), and binds any other link\'s target under its name', () => {
    const root = scratch()
    mkdirSync(join(root, 'usr', 'bin'), { recursive: true })
    mkdirSync(join(root, 'elsewhere'))
    symlinkSync('usr/bin', join(root, 'bin'))
    symlinkSync(join(root, 'elsewhere'), join(root, 'tool'))
    const toolchain = [join(root, 'usr'), join(root, 'bin'), join(root, 'tool')]
    expect(toolchainMount(join(root, 'bin'), toolchain)).toEqual(['--symlink', 'usr/bin', join(root, 'bin')])
    expect(toolchainMount(join(root, 'tool'), toolchain)).toEqual(['--ro-bind-try', join(root, 'tool'), join(root, 'tool')])
    expect(toolchainMount(join(root, 'usr'), toolchain)).toEqual(['--ro-bind-try', join(root, 'usr'), join(root, 'usr')])
  })
})

describe('a uid of its own per spawn (SPAWN_AGENT_UIDS)', () => {
  const isRoot = process.getuid?.() === 0
  it('reads a range, none, or refuses nonsense', () => {
    expect(readAgentUids({})).toEqual(DEFAULT_AGENT_UIDS)
    expect(readAgentUids({ SPAWN_AGENT_UIDS: 'none' })).toBeNull()
    expect(readAgentUids({ SPAWN_AGENT_UIDS: '300000-300009' })).toEqual({ first: 300000, last: 300009 })
    for (const bad of ['0-10', '5000-4000', 'abc', '1000-99999999999']) expect(() => readAgentUids({ SPAWN_AGENT_UIDS: bad }), bad).toThrow(/SPAWN_AGENT_UIDS/)
    expect(readSpawnConfig({ SPAWN_AGENT_UIDS: 'none' }, '/srv').agentUids).toBeNull()
  })
  it('gives concurrent spawns distinct uids, refuses when the range is full, and reuses a uid once freed', async () => {
    const root = scratch()
    const range = { first: 300000, last: 300002 }
    const users = ['a', 'b', 'c'].map(id => allocateSpawnUid(range, root, id))
    expect(new Set(users.map(u => u.uid)).size).toBe(3)
    for (const user of users) expect(user).toMatchObject({ gid: user.uid, name: `spawn-uid-${user.uid}` })
    expect(() => allocateSpawnUid(range, root, 'd')).toThrow(/no free uid in SPAWN_AGENT_UIDS 300000-300002/)
    const logs: string[] = []
    expect(await releaseSpawnUid(root, users[1]!, line => logs.push(line))).toBe(true)
    expect(allocateSpawnUid(range, root, 'd').uid).toBe(users[1]!.uid)
    expect(readdirSync(join(root, '.uids')).sort()).toEqual(['300000', '300001', '300002'])
  })
  it.skipIf(!isRoot)('kills what outlives the spawn under its uid, then frees it', async () => {
    const root = scratch()
    const uid = 2_000_200_000
    mkdirSync(join(root, '.uids'))
    writeFileSync(join(root, '.uids', String(uid)), 'x\n')
    const survivor = spawn('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--', 'sleep', '60'], { stdio: 'ignore' })
    await new Promise(resolve => setTimeout(resolve, 300))
    expect(processesOfUid(uid)).toEqual([survivor.pid])
    const logs: string[] = []
    expect(await releaseSpawnUid(root, { name: 'spawn', uid, gid: uid }, line => logs.push(line), 100)).toBe(true)
    expect(logs.join('\n')).toContain(`uid ${uid}: processes ${survivor.pid} outlived the spawn; killed`)
    expect(processesOfUid(uid)).toEqual([])
    expect(readdirSync(join(root, '.uids'))).toEqual([])
  })
})
