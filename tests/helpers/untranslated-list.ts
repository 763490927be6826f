// Lists the untranslated strings of the `.vue` files under the given folders (default: the
// whole app), a line each: `npx tsx tests/helpers/untranslated-list.ts layers/worksites`.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { untranslatedIn } from './untranslated'

const ROOT = resolve(import.meta.dirname, '../..')
const SKIP = new Set(['node_modules', '.nuxt', '.output', '.git', '.data', 'tests'])

function vueUnder(path: string): string[] {
  if (statSync(path).isFile()) return path.endsWith('.vue') ? [path] : []
  return readdirSync(path).flatMap(name => (SKIP.has(name) ? [] : vueUnder(join(path, name))))
}

const targets = process.argv.slice(2)
const roots = targets.length ? targets : ['app.vue', 'error.vue', 'components', 'pages', 'layouts', 'layers']
let count = 0
for (const file of roots.flatMap(target => vueUnder(resolve(ROOT, target)))) {
  for (const { line, text } of untranslatedIn(readFileSync(file, 'utf8'))) {
    count++
    console.log(`${relative(ROOT, file)}:${line} ${text.replace(/\s+/g, ' ').slice(0, 100)}`)
  }
}
console.log(`${count} untranslated`)
process.exitCode = count ? 1 : 0
