// `npm start` builds the hub when the build is missing or older than its sources.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const SOURCES = ['nuxt.config.ts', 'app.vue', 'app.config.ts', 'pages', 'components', 'composables', 'layouts', 'middleware', 'layers', 'server', 'shared', 'assets', 'db', 'package-lock.json']

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = 0
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue
    newest = Math.max(newest, newestMtime(join(path, entry)))
  }
  return newest
}

export function buildIsCurrent(root: string): boolean {
  const marker = join(root, '.output', 'nitro.json')
  if (!existsSync(marker) || !existsSync(join(root, '.output', 'server', 'index.mjs'))) return false
  const built = statSync(marker).mtimeMs
  return SOURCES.every(source => newestMtime(join(root, source)) <= built)
}

export function buildHub(root: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'node_modules', 'nuxt', 'bin', 'nuxt.mjs'), 'build'], { cwd: root, stdio: 'inherit' })
    child.once('error', reject)
    child.once('exit', code => code === 0 ? resolve() : reject(new Error(`nuxt build exited with code ${code}`)))
  })
}
