// Every built-in tool's description in both languages (useToolDescription): the engine's English
// is what the pages showed before and what the model reads, so the English catalog must render
// it word for word, and French readers must never fall back to it.
import { baseCompile } from '@intlify/message-compiler'
import { describe, expect, it } from 'vitest'
import { BUILT_IN_TOOLS } from '../../core/custom/delegation'
import en from '../../i18n/locales/en.json'
import fr from '../../i18n/locales/fr.json'

const english: Record<string, string> = en.agents.tools
const french: Record<string, string> = fr.agents.tools
const names = BUILT_IN_TOOLS.map(tool => tool.name)

/** A catalog message as a reader sees it: text and escaped literals (`{'{'}`); a placeholder would read otherwise, so it fails. */
function rendered(message: string): string {
  const { ast } = baseCompile(message, { location: false })
  const body = ast.body as { type: number, items?: Array<{ type: number, value?: string }> }
  if (body.type !== 2 || !body.items) throw new Error(`not a plain message: ${message}`)
  return body.items.map((item) => {
    if ((item.type === 3 || item.type === 9) && item.value !== undefined) return item.value
    throw new Error(`a placeholder in a tool's description: ${message}`)
  }).join('')
}

describe('built-in tools\' descriptions in the catalogs', () => {
  it.each(BUILT_IN_TOOLS.map(tool => [tool.name, tool.description] as const))('%s has its words in English and French', (name, description) => {
    expect(rendered(english[name] ?? '')).toBe(description)
    expect(rendered(french[name] ?? '').trim()).toBeTruthy()
  })

  it('holds no key for a tool the registry no longer has, and no MCP tool', () => {
    expect(Object.keys(english).sort()).toEqual([...names].sort())
    expect(Object.keys(french).sort()).toEqual([...names].sort())
    expect(names.filter(name => name.startsWith('mcp__'))).toEqual([])
  })
})
