// Finds the words a `.vue` file shows a person without going through the translation files
// (@nuxtjs/i18n): text in the template, static human-facing attributes, string literals in
// template expressions and in the script's human-facing object properties. What reads as code
// is left alone: `<code>`, `<kbd>` and `<pre>` content, icon names, single lowercase tokens
// ('success', 'short'), and the arguments of `t(…)` / `$t(…)` (they are keys).
import { parse } from '@vue/compiler-sfc'

export interface Untranslated {
  line: number
  text: string
}

/** Attributes a person reads (Nuxt UI's props included). */
const HUMAN_ATTRS = new Set([
  'label', 'placeholder', 'title', 'description', 'aria-label', 'alt', 'text', 'empty', 'help', 'hint', 'error',
  'legend', 'confirm-label', 'cancel-label', 'heading', 'subtitle', 'message', 'tooltip', 'caption', 'summary',
  'loading-text', 'empty-text', 'what', 'undo-label', 'action-label', 'question', 'unit', 'prefix', 'suffix',
])
const CODE_TAGS = new Set(['code', 'kbd', 'pre', 'style', 'script'])
/** Object keys in a script whose string values are shown (toasts, menus, table columns, tabs). */
const SCRIPT_PROP = /\b(label|title|description|placeholder|text|message|header|empty|hint|help|tooltip|question|confirmLabel|cancelLabel)\s*:\s*(['"`])((?:\\.|(?!\2).)*)\2/g
const LITERAL = /(['"`])((?:\\.|(?!\1)[^\\])*)\1/g
const WORDY = /[A-Za-zÀ-ÿ]/

/** A literal shows words when it has letters and is not a code token or an icon name. */
function wordy(text: string): boolean {
  const bare = text.replace(/\$\{[^}]*\}/g, ' ').trim()
  if (!WORDY.test(bare)) return false
  if (/^i-[a-z0-9-]+(:[a-z0-9-]+)?$/.test(bare)) return false
  if (/^[a-z][a-z0-9_.:/#-]*$/.test(bare)) return false
  if (/^(https?:|\/|#|mailto:)/.test(bare) && !/\s/.test(bare)) return false
  return true
}

/** String literals of a JS expression that are not a `t(…)` key. */
function literalsOf(expression: string): string[] {
  const found: string[] = []
  for (const match of expression.matchAll(LITERAL)) {
    const before = expression.slice(0, match.index).trimEnd()
    if (/(?:^|[^\w$.])\$?t[ec]?\($/.test(before) || /\b(?:te|tm|rt)\($/.test(before)) continue
    if (wordy(match[2]!)) found.push(match[2]!)
  }
  return found
}

interface TemplateNode {
  type: number
  tag?: string
  content?: string | { content?: string }
  children?: TemplateNode[]
  props?: Array<{ type: number, name: string, value?: { content: string }, arg?: { content?: string }, exp?: { content?: string } }>
  loc: { start: { line: number } }
}

function walk(node: TemplateNode, lineOffset: number, found: Untranslated[], inCode: boolean): void {
  const line = node.loc.start.line + lineOffset
  if (node.type === 2 && !inCode) {
    const text = String(node.content ?? '').trim()
    if (WORDY.test(text)) found.push({ line, text })
  }
  if (node.type === 5 && !inCode && typeof node.content === 'object') {
    for (const text of literalsOf(node.content.content ?? '')) found.push({ line, text })
  }
  for (const prop of node.props ?? []) {
    if (prop.type === 6 && HUMAN_ATTRS.has(prop.name) && prop.value && wordy(prop.value.content)) {
      found.push({ line, text: `${prop.name}="${prop.value.content}"` })
    }
    if (prop.type === 7 && prop.name === 'bind' && prop.arg?.content && HUMAN_ATTRS.has(prop.arg.content)) {
      for (const text of literalsOf(prop.exp?.content ?? '')) found.push({ line, text: `:${prop.arg.content} ${text}` })
    }
  }
  const code = inCode || CODE_TAGS.has(node.tag ?? '')
  for (const child of node.children ?? []) walk(child, lineOffset, found, code)
}

/** Every untranslated string of one `.vue` source, with its line. */
export function untranslatedIn(source: string): Untranslated[] {
  const { descriptor } = parse(source)
  const found: Untranslated[] = []
  if (descriptor.template?.ast) {
    walk(descriptor.template.ast as unknown as TemplateNode, 0, found, false)
  }
  for (const block of [descriptor.script, descriptor.scriptSetup]) {
    if (!block) continue
    const offset = block.loc.start.line - 1
    block.content.split('\n').forEach((text, index) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(text)) return
      for (const match of text.matchAll(SCRIPT_PROP)) {
        if (wordy(match[3]!)) found.push({ line: offset + index + 1, text: `${match[1]}: ${match[3]}` })
      }
    })
  }
  return found
}
