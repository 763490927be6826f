// Prompt files: the text tsx and vitest read is the text the server bundle inlines, every call
// in the tree has the one form the build can inline, and a placeholder cannot go unfilled.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { fillPrompt, promptFile } from '../../core/prompts/file'
import { inlinePromptCalls, inlinePromptFiles } from '../../core/prompts/inline'

const ROOT = resolve(import.meta.dirname, '../../../..')
const dir = mkdtempSync(join(tmpdir(), 'prompt-files-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function sources(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry)
    if (entry === 'node_modules' || entry === 'tests') return []
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : []
  })
}

describe('prompt files', () => {
  it('reads a file without its final newline, and the build inlines the very same text', () => {
    writeFileSync(join(dir, 'a.system.md'), 'Line one, "quoted".\nLine two.\n')
    const module = join(dir, 'a.ts')
    expect(promptFile(new URL('./a.system.md', `file://${module}`))).toBe('Line one, "quoted".\nLine two.')
    const { code, files } = inlinePromptCalls(`const A = promptFile(new URL("./a.system.md", import.meta.url))\n`, module)
    expect(code).toBe(`const A = ${JSON.stringify('Line one, "quoted".\nLine two.')}\n`)
    expect(files).toEqual([join(dir, 'a.system.md')])
  })

  it('refuses at build time a call it cannot inline', () => {
    expect(() => inlinePromptCalls('const A = promptFile(url)', join(dir, 'b.ts'))).toThrow(/cannot inline/)
    expect(() => inlinePromptCalls(`const A = promptFile(new URL('./missing.md', import.meta.url))`, join(dir, 'b.ts'))).toThrow(/ENOENT/)
  })

  it('leaves modules without a call alone', () => {
    const plugin = inlinePromptFiles()
    expect(plugin.transform.call({ addWatchFile: () => {} }, 'export const a = 1', join(dir, 'c.ts'))).toBeNull()
  })

  it('finds every call in the layers inlinable, and each file there', () => {
    // The mechanism's own folder names the call form in its comments and messages.
    const mechanism = join(ROOT, 'layers/ai/core/prompts')
    const callers = sources(join(ROOT, 'layers')).filter(file => !file.startsWith(mechanism) && readFileSync(file, 'utf8').includes('promptFile('))
    expect(callers.length).toBeGreaterThan(10)
    for (const file of callers) expect(() => inlinePromptCalls(readFileSync(file, 'utf8'), file), file).not.toThrow()
  })

  it('fills placeholders, and refuses one left without a value', () => {
    expect(fillPrompt('one of {{intents}}.', { intents: '"run", "noise"' })).toBe('one of "run", "noise".')
    expect(() => fillPrompt('{{missing}}', {})).toThrow(/\{\{missing\}\}/)
  })
})
