// `npm start` on any Node: the hub needs Node 22.19+ (Nuxt 4.5). On an older Node this
// fetches the official binary from the npm registry package node-<platform>-<arch>@22 into
// a user cache (no root), checks the native modules load under it (rebuilt against its
// headers otherwise) and runs scripts/start.ts with it; on a recent Node it runs it directly.
// When that cannot be done it stops at once with one line naming the fix.
// Plain JavaScript with no dependency, so that it runs on whatever Node npm found.
//   node scripts/node-bootstrap.mjs start [flags]    (npm start)
//   node scripts/node-bootstrap.mjs --after-install  (npm install's postinstall: says what npm start will do)
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const MINIMUM = [22, 19, 0]
const NATIVE_MODULES = ['node-pty', 'sharp']

function log(line) {
  process.stdout.write(`[synedre] ${line}\n`)
}

function fail(line) {
  process.stderr.write(`[synedre] ${line}\n`)
  process.exit(1)
}

function isRecentEnough(version) {
  const parts = version.replace(/^v/, '').split('.').map(Number)
  for (let i = 0; i < MINIMUM.length; i += 1) {
    if ((parts[i] ?? 0) !== MINIMUM[i]) return (parts[i] ?? 0) > MINIMUM[i]
  }
  return true
}

function cacheDir(env) {
  if (env.SYNEDRE_NODE_CACHE) return env.SYNEDRE_NODE_CACHE
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'synedre', 'node22')
}

const PACKAGE = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`

function nodeIn(dir) {
  const home = join(dir, 'node_modules', PACKAGE)
  return { home, bin: join(home, 'bin', process.platform === 'win32' ? 'node.exe' : 'node') }
}

function versionOf(bin) {
  const result = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 })
  return result.status === 0 ? result.stdout.trim() : null
}

/** npm's own CLI, run by the Node at hand (npm 10/11 run on Node 20). */
function npmCommand() {
  const cli = process.env.npm_execpath
  return cli && /npm-cli\.c?js$/.test(cli) ? [process.execPath, [cli]] : ['npm', []]
}

/** The environment for a nested npm: none of the running script's npm_* context. */
function npmEnv(extra) {
  const env = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('npm_') && !/^npm_config_(cache|registry|userconfig)$/.test(key)) continue
    env[key] = value
  }
  return { ...env, ...extra }
}

function fixLine(reason) {
  const dir = cacheDir(process.env)
  return `Node ${process.version} is older than ${MINIMUM.join('.')}, which the hub needs, and ${reason}. `
    + `Fix: install Node 22 (\`npm install --prefix ${dir} ${PACKAGE}@22\`, nvm install 22, or your system's package) and run npm start again.`
}

/** The cached Node 22, fetched first when missing. */
function ensureNode22() {
  const dir = cacheDir(process.env)
  const cached = nodeIn(dir)
  const have = existsSync(cached.bin) ? versionOf(cached.bin) : null
  if (have && isRecentEnough(have)) return { ...cached, version: have, fetched: false }

  if (!['linux', 'darwin', 'win32'].includes(process.platform) || !['x64', 'arm64'].includes(process.arch)) {
    fail(fixLine(`the npm registry has no Node binary package for ${process.platform}-${process.arch}`))
  }
  log(`Node ${process.version} is older than ${MINIMUM.join('.')}: fetching ${PACKAGE}@22 from the npm registry into ${dir} (once, about 30 MB)…`)
  const staging = `${dir}.partial-${process.pid}`
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  const [npm, npmArgs] = npmCommand()
  const result = spawnSync(npm, [...npmArgs, 'install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error',
    '--fetch-retries=1', '--fetch-timeout=30000', '--fetch-retry-mintimeout=1000', '--fetch-retry-maxtimeout=3000', '--prefix', staging, `${PACKAGE}@22`], {
    cwd: staging, env: npmEnv({}), stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 300_000,
  })
  const fetched = nodeIn(staging)
  const version = result.status === 0 && existsSync(fetched.bin) ? versionOf(fetched.bin) : null
  if (!version || !isRecentEnough(version)) {
    rmSync(staging, { recursive: true, force: true })
    const why = (result.stderr || result.error?.message || '').split('\n').map(line => line.replace(/^npm error\s*/, '').trim()).find(Boolean)
    fail(fixLine(`${PACKAGE}@22 could not be fetched from the npm registry${why ? ` (${why})` : version ? ` (got ${version})` : ''}`))
  }
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dirname(dir), { recursive: true })
  renameSync(staging, dir)
  return { ...nodeIn(dir), version, fetched: true }
}

function nativeModulesLoad(bin) {
  const probe = NATIVE_MODULES.map(name => `require(${JSON.stringify(name)})`).join(';')
  const result = spawnSync(bin, ['-e', probe], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 })
  return { ok: result.status === 0, error: (result.stderr || '').split('\n').find(line => /Error/.test(line)) ?? '' }
}

/** node-pty and sharp use Node-API (one build serves every Node), but a build for another ABI is rebuilt. */
function ensureNativeModules(node) {
  const first = nativeModulesLoad(node.bin)
  if (first.ok) return
  log(`native modules do not load under Node ${node.version} (${first.error.trim()}): rebuilding ${NATIVE_MODULES.join(', ')} against its headers…`)
  const [npm, npmArgs] = npmCommand()
  const env = npmEnv({ PATH: `${dirname(node.bin)}${process.platform === 'win32' ? ';' : ':'}${process.env.PATH ?? ''}`, npm_config_nodedir: node.home })
  const rebuilt = spawnSync(npm === process.execPath ? node.bin : npm, [...npmArgs, 'rebuild', ...NATIVE_MODULES], { cwd: ROOT, env, stdio: 'inherit', timeout: 600_000 })
  if (rebuilt.status !== 0 || !nativeModulesLoad(node.bin).ok) {
    fail(`the native modules (${NATIVE_MODULES.join(', ')}) could not be rebuilt for Node ${node.version}. Fix: PATH=${dirname(node.bin)}:$PATH npm_config_nodedir=${node.home} npm rebuild ${NATIVE_MODULES.join(' ')}, then npm start again.`)
  }
}

function afterInstall() {
  if (isRecentEnough(process.version)) return
  log(`Node ${process.version} here: the EBADENGINE warnings above are expected. npm start runs the hub on Node 22, fetched once from the npm registry into ${cacheDir(process.env)} (no root needed).`)
}

function start(args) {
  let node = { bin: process.execPath, home: null, version: process.version }
  if (!isRecentEnough(process.version)) {
    node = ensureNode22()
    ensureNativeModules(node)
    log(`running the hub on Node ${node.version} (${node.bin})`)
  }
  const env = { ...process.env }
  if (node.home) {
    // Everything the hub starts (the build, automates, npm rebuilds) uses the same Node and its headers.
    env.PATH = `${dirname(node.bin)}${process.platform === 'win32' ? ';' : ':'}${env.PATH ?? ''}`
    env.npm_config_nodedir = node.home
  }
  const child = spawn(node.bin, ['--import', 'tsx', join(ROOT, 'scripts', 'start.ts'), ...args], { cwd: ROOT, env, stdio: 'inherit' })
  // Ctrl-C reaches the whole process group: start.ts shuts down and this waits for it.
  process.on('SIGINT', () => {})
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  child.once('error', error => fail(`could not run ${node.bin}: ${error.message}`))
  child.once('exit', code => process.exit(code ?? 1))
}

const [command, ...rest] = process.argv.slice(2)
if (command === '--after-install') afterInstall()
else if (command === 'start') start(rest)
else fail('usage: node scripts/node-bootstrap.mjs start [flags] | --after-install')
