// The server bundle's side of prompt files (file.ts): a Rollup plugin for Nitro that replaces
// each `promptFile(new URL('./name.md', import.meta.url))` with the file's text as a string
// literal, so the built server never reads a source file. A call it cannot read (another
// argument, a missing file) fails the build rather than the first request.
import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { promptText } from './file'

const CALL = /\bpromptFile\(\s*new URL\(\s*(['"])(\.\.?\/[^'"]+\.md)\1\s*,\s*import\.meta\.url\s*\)\s*\)/g
const ANY_CALL = /\bpromptFile\(/g
const DEFINITION = /\bfunction promptFile\(/g

/** The module's code with every prompt file call inlined, and the files it read; throws on a call it cannot inline. */
export function inlinePromptCalls(code: string, modulePath: string): { code: string, files: string[] } {
  const files: string[] = []
  const inlined = code.replace(CALL, (_, _quote: string, relativePath: string) => {
    const path = resolve(dirname(modulePath), relativePath)
    files.push(path)
    return JSON.stringify(promptText(readFileSync(path, 'utf8')))
  })
  const left = (inlined.match(ANY_CALL)?.length ?? 0) - (inlined.match(DEFINITION)?.length ?? 0)
  if (left > 0) throw new Error(`${modulePath}: a promptFile() call the build cannot inline (write promptFile(new URL('./name.md', import.meta.url)))`)
  return { code: inlined, files }
}

interface TransformContext { addWatchFile: (id: string) => void }

/** The Rollup plugin (structurally typed: the AI layer does not depend on Rollup's types). */
export function inlinePromptFiles() {
  return {
    name: 'synedre-inline-prompt-files',
    transform(this: TransformContext, code: string, id: string) {
      if (id.startsWith('\0') || !/\.[cm]?[jt]s$/.test(id.split('?')[0]!) || !code.includes('promptFile(')) return null
      const result = inlinePromptCalls(code, id.split('?')[0]!)
      for (const file of result.files) this.addWatchFile(file)
      return { code: result.code, map: null }
    },
  }
}
