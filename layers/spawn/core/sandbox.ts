// The agent is a guest: its environment is an allowlist, never the worker's, and it runs in
// a sandbox. The worker writes the sandbox policy (sandbox.json in the spawn's folder); the
// pseudo-terminal wrapper turns it into the command it starts:
//   srt    Anthropic's sandbox runtime (bubblewrap, no network namespace but its proxy, egress
//          only to the allowed hosts: the worker's key injector, key-injector.ts, in place of
//          the model API, and SPAWN_ALLOW_HOSTS);
//   bwrap  plain bubblewrap: own PID, network, IPC namespaces (no network at all), the
//          environment cleared;
//   none   as is (chosen explicitly; refused when the worker is root).
// In every mode the agent holds only a placeholder credential: the real key is put into the
// request's header by the injector, outside, and nothing ever substitutes it into a body.
// Both sandboxes show a list and hide the rest: the agent reads its own folders (work, home,
// out, tmp), the toolchain (toolchain.ts, read-only) and the few `readable` paths, and nothing
// else of the machine: no other spawn's folders or logs, no other checkout, no /opt, /srv,
// /home. bwrap starts from an empty root and binds the list; srt denies `/` (it lays an empty
// tmpfs over every top-level folder the list does not cover) and binds the list back.
// Both run as the spawn's own uid when the worker is root (setpriv, groups cleared; see
// spawn-uid.ts), and both end every process of the sandbox when the agent ends (a PID
// namespace whose first process dies takes all the others with it, double-forked or not).
import { chownSync, existsSync, lstatSync, mkdtempSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { SECRET_NAME, type SandboxMode, type SpawnConfig } from './config'
import { isAtOrUnder } from './toolchain'
import type { AgentUser, Workspace } from './workspace'

export interface SandboxPolicy {
  mode: SandboxMode
  workDir: string
  homeDir: string
  outDir: string
  tmpDir: string
  /** Readable (read-only) inside: the system's programs and libraries, the Node, what a build needs. */
  toolchain: string[]
  /** Never readable inside, even under a toolchain entry (DATA_DIR, the vault, the hub's checkout, the spawns). */
  hidden: string[]
  /** Readable inside although under a hidden folder: the agent binary, srt's own helpers. */
  readable: string[]
  /** host:port entries the proxy lets through (srt only): the key injector's, or the model API's without one. */
  allowHosts: string[]
  user: AgentUser | null
}

export type Env = Readonly<Record<string, string | undefined>>

const requireHere = createRequire(import.meta.url)

/** The srt CLI and its vendored helpers (seccomp), both needed outside and inside. */
export function srtPaths(): { cli: string, vendor: string } {
  const pkg = requireHere.resolve('@anthropic-ai/sandbox-runtime/package.json')
  return { cli: join(dirname(pkg), 'dist', 'cli.js'), vendor: join(dirname(pkg), 'vendor') }
}

/** Base environment names every agent gets (besides HOME, TMPDIR and the spawn's own). */
const BASE_NAMES = ['PATH', 'LANG', 'LC_ALL', 'TERM', 'TZ']

/** How the agent reaches the model: the key injector's address and the placeholder it accepts. */
export interface ModelAccess { url: string, credential: string }

/**
 * The agent's environment: PATH, LANG, TERM, a HOME and TMPDIR of its own, ANTHROPIC_MODEL,
 * the names SPAWN_AGENT_ENV_PASS lists (never one that looks like a secret), the git identity
 * and the spawn's own variables; with a key injector, its address as ANTHROPIC_BASE_URL and
 * its placeholder as the credential (SPAWN_AGENT_CREDENTIAL's name). The worker's key itself
 * is never taken; without an injector the agent has no credential.
 */
export function agentEnvironment(env: Env, config: Pick<SpawnConfig, 'credentialEnv' | 'envPass'>, workspace: Pick<Workspace, 'homeDir' | 'tmpDir' | 'resultFile'>, extra: Record<string, string>, model: ModelAccess | null): Record<string, string> {
  const out: Record<string, string> = {}
  const take = (name: string) => {
    const value = env[name]
    if (value !== undefined) out[name] = value
  }
  for (const name of [...BASE_NAMES, 'ANTHROPIC_BASE_URL', 'ANTHROPIC_MODEL']) take(name)
  if (model) {
    out.ANTHROPIC_BASE_URL = model.url
    out[config.credentialEnv] = model.credential
  }
  for (const pattern of config.envPass) {
    const names = pattern.endsWith('*') ? Object.keys(env).filter(name => name.startsWith(pattern.slice(0, -1))) : [pattern]
    for (const name of names) if (!SECRET_NAME.test(name)) take(name)
  }
  out.PATH ??= '/usr/local/bin:/usr/bin:/bin'
  out.LANG ??= 'C.UTF-8'
  return {
    ...out,
    TERM: 'xterm-color',
    HOME: workspace.homeDir,
    TMPDIR: workspace.tmpDir,
    ATLAS_RESULT_FILE: workspace.resultFile,
    GIT_AUTHOR_NAME: 'Atlas agent',
    GIT_AUTHOR_EMAIL: 'atlas-agent@localhost',
    GIT_COMMITTER_NAME: 'Atlas agent',
    GIT_COMMITTER_EMAIL: 'atlas-agent@localhost',
    ...extra,
  }
}

/** `modelHost`: the key injector's host:port, which stands for the model API's when there is one. */
/** `mcp`: what the spawn's MCP servers need (spawn-mcp.ts): their files shown read-only, their header injectors let through. */
export function sandboxPolicy(config: Pick<SpawnConfig, 'sandbox' | 'hiddenDirs' | 'toolchain' | 'allowHosts' | 'modelApiHost'>, workspace: Workspace, input: { agentBin: string | null, user: AgentUser | null, modelHost: string | null, mcp?: { readable: string[], allowHosts: string[] } }): SandboxPolicy {
  const readable: string[] = [...(input.mcp?.readable ?? [])]
  if (input.agentBin) {
    readable.push(input.agentBin)
    try {
      const real = realpathSync(input.agentBin)
      if (real !== input.agentBin) readable.push(real)
    }
    catch { /* the wrapper says the binary is missing */ }
  }
  if (config.sandbox === 'srt') readable.push(srtPaths().vendor)
  return {
    mode: config.sandbox,
    workDir: workspace.workDir,
    homeDir: workspace.homeDir,
    outDir: workspace.outDir,
    tmpDir: workspace.tmpDir,
    toolchain: config.toolchain.filter(path => existsSync(path)),
    hidden: config.hiddenDirs.filter(dir => existsSync(dir)),
    readable,
    allowHosts: [input.modelHost ?? config.modelApiHost, ...(input.mcp?.allowHosts ?? []), ...config.allowHosts],
    user: input.user,
  }
}

export function writeSandboxPolicy(workspace: Workspace, policy: SandboxPolicy): string {
  const file = join(workspace.dir, 'sandbox.json')
  writeFileSync(file, JSON.stringify(policy, null, 2), { mode: 0o644 })
  return file
}

/**
 * srt's own folder for one run (its TMPDIR): its proxy's sockets (a socket path has at most 107
 * bytes, hence directly under /tmp) and its scratch, the agent's uid's. srt binds its sockets
 * into the sandbox before it lays the '/' deny's tmpfs over /tmp, which buries them: the folder
 * is in allowRead, bound back after.
 */
export function makeSrtRuntimeDir(user: AgentUser | null): string {
  const dir = mkdtempSync('/tmp/srt-')
  if (user) chownSync(dir, user.uid, user.gid)
  return dir
}

/** srt's settings for a policy (the file the srt CLI reads with --settings); `runtimeDir`: see makeSrtRuntimeDir. */
export function srtSettings(policy: SandboxPolicy, runtimeDir?: string): Record<string, unknown> {
  const writable = [policy.workDir, policy.homeDir, policy.outDir, policy.tmpDir]
  // No `credentials` block, ever: srt's masking substitutes the real key into request bodies
  // too (a tool result holding the sentinel reaches the model as the key). Without it the
  // proxy only filters; the key injector, outside, writes the key into a header.
  return {
    network: { allowedDomains: policy.allowHosts, deniedDomains: [] },
    filesystem: {
      // '/' first: srt expands it into every top-level folder no allowRead entry covers, each
      // behind an empty tmpfs, then binds the allowRead entries back (read-only). The hidden
      // folders stay hidden even under a toolchain entry (an allowRead only re-opens paths
      // inside a denied folder, never its ancestors).
      denyRead: ['/', ...policy.hidden],
      allowRead: [...policy.toolchain, ...writable, ...policy.readable, ...(runtimeDir ? [runtimeDir] : [])],
      allowWrite: writable,
      denyWrite: [],
    },
  }
}

/**
 * One toolchain entry's mount: a symbolic link whose target the list covers stays a link
 * (/bin → usr/bin on a merged /usr); any other entry is bound read-only (a link to elsewhere
 * shows its target's content under its own name).
 */
export function toolchainMount(path: string, toolchain: string[]): string[] {
  try {
    if (lstatSync(path).isSymbolicLink()) {
      const target = realpathSync(path)
      if (toolchain.some(entry => entry !== path && isAtOrUnder(target, entry))) return ['--symlink', readlinkSync(path), path]
    }
  }
  catch { /* absent or dangling: the bind below is a -try and skips it */ }
  return ['--ro-bind-try', path, path]
}

/** bubblewrap's arguments for a policy, up to and including `--`. */
export function bwrapArgs(policy: SandboxPolicy, env: Record<string, string>): string[] {
  // No `--ro-bind / /`: the root is an empty tmpfs and only the list is bound into it.
  const args = ['--die-with-parent', '--unshare-all', '--new-session', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp']
  for (const path of policy.toolchain) args.push(...toolchainMount(path, policy.toolchain))
  // A hidden folder under a toolchain entry (a checkout under a listed /srv) stays hidden.
  for (const dir of [...policy.hidden, '/root', '/home']) {
    if (existsSync(dir) && policy.toolchain.some(entry => isAtOrUnder(dir, entry))) args.push('--tmpfs', dir)
  }
  for (const path of policy.readable) if (existsSync(path)) args.push('--ro-bind', path, path)
  for (const dir of [policy.workDir, policy.homeDir, policy.outDir, policy.tmpDir]) args.push('--bind', dir, dir)
  args.push('--chdir', policy.workDir, '--clearenv')
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value)
  args.push('--')
  return args
}

/** What the wrapper starts in its pseudo-terminal: the agent, confined by the policy. */
export function confinedCommand(policy: SandboxPolicy | null, binary: string, argv: string[], env: Record<string, string>, settingsFile?: string, srtRuntimeDir = '/tmp'): { file: string, args: string[], env: Record<string, string> } {
  if (!policy || policy.mode === 'none') return { file: binary, args: argv, env }
  const drop = policy.user ? ['setpriv', `--reuid=${policy.user.uid}`, `--regid=${policy.user.gid}`, '--clear-groups', '--'] : []
  let command: string[]
  if (policy.mode === 'bwrap') command = ['bwrap', ...bwrapArgs(policy, env), binary, ...argv]
  else {
    if (!settingsFile) throw new Error('srt needs its settings file')
    // srt tells every client inside to go direct to loopback (NO_PROXY); the key injector (a
    // loopback address) is reached through the proxy instead (its IP:port is on the allowlist).
    // srt's own sockets go to a short TMPDIR (makeSrtRuntimeDir); the agent gets its own
    // TMPDIR back inside.
    command = [process.execPath, srtPaths().cli, '--settings', settingsFile, '--', '/bin/sh', '-c', 'unset NO_PROXY no_proxy; exec "$@"', 'agent', '/usr/bin/env', `TMPDIR=${policy.tmpDir}`, binary, ...argv]
    const [file, ...args] = [...drop, ...command]
    return { file: file!, args, env: { ...env, TMPDIR: srtRuntimeDir } }
  }
  const [file, ...args] = [...drop, ...command]
  return { file: file!, args, env }
}
