// Prompts live in `.md` files beside the code that sends them. tsx (automates, scripts) and
// vitest run the sources, so the file is read where it lies; the hub's server bundle
// (`nuxt build`) carries no sources, so the build writes each file's text in place of the
// call (inline.ts, wired in layers/ai/nuxt.config.ts). That is why a call names its file
// with a literal `new URL('./name.md', import.meta.url)`: the build refuses any other form.
import { readFileSync } from 'node:fs'

/** A prompt file's text, read once at the caller's module load. */
export function promptFile(url: URL): string {
  return promptText(readFileSync(url, 'utf8'))
}

/** The text without the final newline an editor adds (no prompt ended with one). */
export function promptText(file: string): string {
  return file.replace(/\r?\n$/, '')
}

/** Fills `{{name}}` placeholders; one left without a value is an error, never a silent gap. */
export function fillPrompt(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name]
    if (value === undefined) throw new Error(`prompt placeholder {{${name}}} has no value`)
    return value
  })
}
