// What the agent may read besides its own folders: the toolchain a build of the client's
// project needs, named here and nowhere else (SPAWN_TOOLCHAIN overrides it). Everything else
// of the machine is hidden inside the sandbox: other spawns' folders and logs, other
// checkouts, /opt, /srv, /var, /home, /root, the rest of /etc.
import { realpathSync } from 'node:fs'
import { dirname, isAbsolute, normalize, sep } from 'node:path'
import { AtlasConfigError, type AtlasEnv } from './env'

/**
 * The system's programs and libraries, and the few /etc entries they read: certificates,
 * the dynamic linker's cache, name resolution, users and groups (git and ssh look the user
 * up), the time zone, Debian's alternatives. Never /etc as a whole (it holds the host's
 * configuration: npmrc, gitconfig, the mail server's, the database's).
 */
export const SYSTEM_TOOLCHAIN: readonly string[] = [
  '/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32',
  '/etc/alternatives', '/etc/ssl', '/etc/ca-certificates', '/etc/ca-certificates.conf', '/etc/pki',
  '/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d',
  '/etc/passwd', '/etc/group', '/etc/nsswitch.conf', '/etc/hosts', '/etc/host.conf', '/etc/resolv.conf', '/etc/gai.conf', '/etc/services', '/etc/protocols',
  '/etc/localtime', '/etc/timezone', '/etc/os-release', '/etc/mime.types', '/etc/inputrc', '/etc/terminfo',
]

/** The Node installation running the worker (the agent's CLI and a client's build need one). */
export function nodePrefix(execPath: string): string {
  let real = execPath
  try {
    real = realpathSync(execPath)
  }
  catch { /* a path that does not resolve is taken as given */ }
  return dirname(dirname(real))
}

/** The default toolchain: the system's, plus this Node when it lives outside /usr. */
export function defaultToolchain(execPath: string): string[] {
  const node = nodePrefix(execPath)
  return SYSTEM_TOOLCHAIN.some(entry => isAtOrUnder(node, entry)) ? [...SYSTEM_TOOLCHAIN] : [...SYSTEM_TOOLCHAIN, node]
}

export function isAtOrUnder(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep)
}

/**
 * SPAWN_TOOLCHAIN: absolute paths, comma-separated; the word `default` stands for the default
 * list (`default,/opt/php8` adds one). `/` is refused: it would show the whole machine.
 */
export function readToolchain(env: AtlasEnv, execPath = process.execPath): string[] {
  const raw = env.SPAWN_TOOLCHAIN?.trim()
  if (!raw) return defaultToolchain(execPath)
  const out: string[] = []
  for (const item of raw.split(',').map(entry => entry.trim()).filter(Boolean)) {
    if (item === 'default') {
      out.push(...defaultToolchain(execPath))
      continue
    }
    if (!isAbsolute(item) || /[\0\n]/.test(item)) throw new AtlasConfigError('SPAWN_TOOLCHAIN', `expected absolute paths, got "${item}"`)
    const path = normalize(item).replace(/(.)\/$/, '$1')
    if (path === '/') throw new AtlasConfigError('SPAWN_TOOLCHAIN', '"/" would show the agent the whole machine: list the folders a build needs')
    out.push(path)
  }
  return [...new Set(out)]
}
