// The agent is a guest: its environment is an allowlist, never the worker's, and it runs in
// a sandbox. The worker writes the sandbox policy (sandbox.json in the spawn's folder); the
// pseudo-terminal wrapper turns it into the command it starts:
//   srt    Anthropic's sandbox runtime (bubblewrap, no network namespace but its proxy, egress
//          only to the allowed hosts, the model key masked: the agent sees a sentinel and the
//          proxy puts the real key back on egress to the model API);
//   bwrap  plain bubblewrap: own PID, network, IPC namespaces (no network at all), the system
//          read-only, the hidden folders behind empty tmpfs, the environment cleared;
//   none   as is (chosen explicitly; refused when the worker is root).
// Both sandboxes run as the agent's user when the worker is root (setpriv, groups cleared),
// and both end every process of the sandbox when the agent ends (a PID namespace whose first
// process dies takes all the others with it, double-forked or not).
import { existsSync, realpathSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { SECRET_NAME, type SandboxMode, type SpawnConfig } from './config'
import type { AgentUser, Workspace } from './workspace'

export interface SandboxPolicy {
  mode: SandboxMode
  workDir: string
  homeDir: string
  outDir: string
  tmpDir: string
  /** Never readable inside (DATA_DIR, the vault, the hub's checkout). */
  hidden: string[]
  /** Readable inside although under a hidden folder: the agent binary, srt's own helpers. */
  readable: string[]
  /** host:port entries the proxy lets through (srt only). */
  allowHosts: string[]
  /** The credential masked by srt (its name), when the agent has one. */
  maskedCredential: string | null
  /** http model API: the proxy puts the key back without TLS termination (loopback tests). */
  plaintextInject: boolean
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

/**
 * The agent's environment: PATH, LANG, TERM, a HOME and TMPDIR of its own, the one credential
 * its CLI needs, ANTHROPIC_BASE_URL / ANTHROPIC_MODEL, the names SPAWN_AGENT_ENV_PASS lists
 * (never one that looks like a secret), the git identity and the spawn's own variables.
 */
export function agentEnvironment(env: Env, config: Pick<SpawnConfig, 'credentialEnv' | 'envPass'>, workspace: Pick<Workspace, 'homeDir' | 'tmpDir' | 'resultFile'>, extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  const take = (name: string) => {
    const value = env[name]
    if (value !== undefined) out[name] = value
  }
  for (const name of [...BASE_NAMES, 'ANTHROPIC_BASE_URL', 'ANTHROPIC_MODEL']) take(name)
  take(config.credentialEnv)
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

export function sandboxPolicy(config: Pick<SpawnConfig, 'sandbox' | 'hiddenDirs' | 'allowHosts' | 'credentialEnv'>, workspace: Workspace, input: { agentBin: string | null, env: Env, user: AgentUser | null }): SandboxPolicy {
  const readable: string[] = []
  if (input.agentBin) {
    readable.push(input.agentBin)
    try {
      const real = realpathSync(input.agentBin)
      if (real !== input.agentBin) readable.push(real)
    }
    catch { /* the wrapper says the binary is missing */ }
  }
  if (config.sandbox === 'srt') readable.push(srtPaths().vendor)
  const base = input.env.ANTHROPIC_BASE_URL?.trim()
  return {
    mode: config.sandbox,
    workDir: workspace.workDir,
    homeDir: workspace.homeDir,
    outDir: workspace.outDir,
    tmpDir: workspace.tmpDir,
    hidden: config.hiddenDirs.filter(dir => existsSync(dir)),
    readable,
    allowHosts: config.allowHosts,
    maskedCredential: input.env[config.credentialEnv] ? config.credentialEnv : null,
    plaintextInject: Boolean(base?.startsWith('http:')),
    user: input.user,
  }
}

export function writeSandboxPolicy(workspace: Workspace, policy: SandboxPolicy): string {
  const file = join(workspace.dir, 'sandbox.json')
  writeFileSync(file, JSON.stringify(policy, null, 2), { mode: 0o644 })
  return file
}

/** srt's settings for a policy (the file the srt CLI reads with --settings). */
export function srtSettings(policy: SandboxPolicy): Record<string, unknown> {
  const writable = [policy.workDir, policy.homeDir, policy.outDir, policy.tmpDir]
  // Masking sends the real key only over a verified TLS connection (terminated by the proxy),
  // except to a plain-http model API (the loopback one of the tests).
  const terminate = policy.maskedCredential !== null && !policy.plaintextInject
  return {
    network: { allowedDomains: policy.allowHosts, deniedDomains: [], ...(terminate ? { tlsTerminate: {} } : {}) },
    filesystem: {
      denyRead: [...policy.hidden, '/root', '/home'],
      allowRead: [...writable, ...policy.readable],
      allowWrite: writable,
      denyWrite: [],
    },
    ...(policy.maskedCredential
      ? { credentials: { envVars: [{ name: policy.maskedCredential, mode: 'mask' }], ...(policy.plaintextInject ? { allowPlaintextInject: true } : {}) } }
      : {}),
  }
}

/** bubblewrap's arguments for a policy, up to and including `--`. */
export function bwrapArgs(policy: SandboxPolicy, env: Record<string, string>): string[] {
  const args = ['--die-with-parent', '--unshare-all', '--new-session', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp']
  for (const dir of [...policy.hidden, '/root', '/home']) if (existsSync(dir)) args.push('--tmpfs', dir)
  for (const path of policy.readable) if (existsSync(path)) args.push('--ro-bind', path, path)
  for (const dir of [policy.workDir, policy.homeDir, policy.outDir, policy.tmpDir]) args.push('--bind', dir, dir)
  args.push('--chdir', policy.workDir, '--clearenv')
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value)
  args.push('--')
  return args
}

/** What the wrapper starts in its pseudo-terminal: the agent, confined by the policy. */
export function confinedCommand(policy: SandboxPolicy | null, binary: string, argv: string[], env: Record<string, string>, settingsFile?: string): { file: string, args: string[], env: Record<string, string> } {
  if (!policy || policy.mode === 'none') return { file: binary, args: argv, env }
  const drop = policy.user ? ['setpriv', `--reuid=${policy.user.uid}`, `--regid=${policy.user.gid}`, '--clear-groups', '--'] : []
  let command: string[]
  if (policy.mode === 'bwrap') command = ['bwrap', ...bwrapArgs(policy, env), binary, ...argv]
  else {
    if (!settingsFile) throw new Error('srt needs its settings file')
    // srt tells every client inside to go direct to loopback (NO_PROXY); a loopback model API
    // is reached through the proxy instead (its IP:port is on the allowlist).
    // srt's own sockets go to a short TMPDIR (a socket path has at most 107 bytes); the agent
    // gets its own TMPDIR back inside.
    command = [process.execPath, srtPaths().cli, '--settings', settingsFile, '--', '/bin/sh', '-c', 'unset NO_PROXY no_proxy; exec "$@"', 'agent', '/usr/bin/env', `TMPDIR=${policy.tmpDir}`, binary, ...argv]
    const [file, ...args] = [...drop, ...command]
    return { file: file!, args, env: { ...env, TMPDIR: '/tmp' } }
  }
  const [file, ...args] = [...drop, ...command]
  return { file: file!, args, env }
}
