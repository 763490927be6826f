// SKILL.md (seed 003 §13.6, issue 21 Deliver 5): front matter (`name`, `description`,
// optional `allowed-tools`, `tags`) then the Markdown body; shareable files under
// `references/`. Export writes a tar bundle; import parses it and refuses a malformed front
// matter naming the line.
import { SkillError } from './errors'
import { readTar, writeTar } from './tar'

export interface SkillDocument {
  name: string
  description: string
  body: string
  tags: string[]
  allowedTools: string[] | null
  files: Array<{ path: string, content: string }>
}

const quote = (value: string) => (/^[\w .,;()'/-]*$/.test(value) && !value.includes(': ') ? value : JSON.stringify(value))

export function renderSkillMd(skill: Omit<SkillDocument, 'files'>): string {
  const lines = ['---', `name: ${skill.name}`, `description: ${quote(skill.description.replace(/\s*\n\s*/g, ' '))}`]
  if (skill.allowedTools) lines.push(`allowed-tools: ${skill.allowedTools.join(', ')}`)
  if (skill.tags.length > 0) lines.push(`tags: ${skill.tags.join(', ')}`)
  lines.push('---', '')
  return `${lines.join('\n')}${skill.body.endsWith('\n') ? skill.body : `${skill.body}\n`}`
}

const KEYS = new Set(['name', 'description', 'allowed-tools', 'tags', 'license', 'version', 'metadata'])

/** Parses a SKILL.md; a malformed front matter is a 422 whose message and details name the line. */
export function parseSkillMd(text: string): Omit<SkillDocument, 'files'> {
  const lines = text.replace(/\r\n/g, '\n').split('\n')
  const fail = (line: number, problem: string): never => {
    throw new SkillError('malformed_front_matter', `SKILL.md line ${line}: ${problem}`, 422, { line })
  }
  if (lines[0]?.trim() !== '---') fail(1, 'the front matter must open with "---"')
  const values = new Map<string, { value: string, line: number }>()
  let end = -1
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    if (line.trim() === '---') {
      end = i
      break
    }
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue
    const match = line.match(/^([a-z][a-z-]*):\s*(.*)$/)
    if (!match) fail(i + 1, `expected "key: value", found "${line.slice(0, 60)}"`)
    const [, key, raw] = match!
    if (!KEYS.has(key!)) fail(i + 1, `unknown key "${key}"`)
    if (values.has(key!)) fail(i + 1, `"${key}" is given twice`)
    let value = raw!.trim()
    if (value.startsWith('"')) {
      try {
        value = JSON.parse(value) as string
      }
      catch {
        fail(i + 1, 'an unterminated or invalid quoted value')
      }
    }
    else if (value.startsWith('\'')) {
      if (!value.endsWith('\'') || value.length < 2) fail(i + 1, 'an unterminated quoted value')
      value = value.slice(1, -1).replace(/''/g, '\'')
    }
    values.set(key!, { value, line: i + 1 })
  }
  if (end < 0) fail(lines.length, 'the front matter is never closed with "---"')
  const name = values.get('name')
  if (!name || !name.value) fail(end + 1, 'the front matter has no "name"')
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name!.value) || name!.value.length > 64) fail(name!.line, `name "${name!.value}" must be lowercase words joined by hyphens (64 characters at most)`)
  const description = values.get('description')
  if (!description || !description.value) fail(end + 1, 'the front matter has no "description"')
  const list = (key: string) => values.get(key)?.value.replace(/^\[|\]$/g, '').split(',').map(item => item.trim().replace(/^["']|["']$/g, '')).filter(Boolean)
  const body = lines.slice(end + 1).join('\n').replace(/^\n+/, '')
  if (!body.trim()) fail(end + 2, 'the body (the skill\'s instructions) is empty')
  return { name: name!.value, description: description!.value, body, tags: list('tags') ?? [], allowedTools: list('allowed-tools') ?? null }
}

/** The bundle: `<name>/SKILL.md` and `<name>/references/<path>` for shareable files only. */
export function exportBundle(skill: Omit<SkillDocument, 'files'>, files: Array<{ path: string, content: string, shareable: boolean }>): Buffer {
  return writeTar([
    { path: `${skill.name}/SKILL.md`, content: renderSkillMd(skill) },
    ...files.filter(file => file.shareable).map(file => ({ path: `${skill.name}/references/${file.path}`, content: file.content })),
  ])
}

/** Reads a bundle (a tar holding one SKILL.md, at the root or in one folder), or a bare SKILL.md text. */
export function importBundle(data: Buffer): SkillDocument {
  const looksTar = data.length >= 512 && data.subarray(257, 262).toString('ascii') === 'ustar'
  if (!looksTar) return { ...parseSkillMd(data.toString('utf8')), files: [] }
  let entries: Array<{ path: string, content: string }>
  try {
    entries = readTar(data)
  }
  catch (error) {
    throw new SkillError('malformed_bundle', (error as Error).message, 422)
  }
  const manifests = entries.filter(entry => /^([^/]+\/)?SKILL\.md$/.test(entry.path))
  if (manifests.length !== 1) throw new SkillError('malformed_bundle', `the bundle must hold exactly one SKILL.md (found ${manifests.length})`, 422)
  const root = manifests[0]!.path.slice(0, -'SKILL.md'.length)
  const files = entries
    .filter(entry => entry.path.startsWith(`${root}references/`) && entry.path.length > `${root}references/`.length)
    .map(entry => ({ path: entry.path.slice(`${root}references/`.length), content: entry.content }))
  return { ...parseSkillMd(manifests[0]!.content), files }
}
