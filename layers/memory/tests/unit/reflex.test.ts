import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { addReflexEntry, listReflexFiles, parseReflexIndex, readReflexFile, readReflexIndex, REFLEX_INDEX_FILE, REFLEX_LINE_MAX } from '../../core/reflex'

describe('reflex memory', () => {
  const root = mkdtempSync(join(tmpdir(), 'synedre-reflex-'))
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('one entry per line; a line over 200 characters is refused with its line number', () => {
    const ok = 'x'.repeat(REFLEX_LINE_MAX)
    const long = `- ${'y'.repeat(REFLEX_LINE_MAX - 1)}`
    const parsed = parseReflexIndex(`# Index\n\n- first\n${ok}\n${long}\n  - indented  \n`)
    expect(parsed.entries).toEqual([{ line: 3, text: '- first' }, { line: 4, text: ok }, { line: 6, text: '- indented' }])
    expect(parsed.refused).toEqual([{ line: 5, length: 201, problem: 'line 5 is 201 characters long (at most 200): refused' }])
    // Characters, not bytes or UTF-16 units.
    expect(parseReflexIndex('é'.repeat(200)).refused).toEqual([])
    expect(parseReflexIndex('🙂'.repeat(200)).refused).toEqual([])
    expect(parseReflexIndex('🙂'.repeat(201)).refused[0]!.line).toBe(1)
  })

  it('adds an entry at the end of the index, refusing a long line with the line it would take', () => {
    const dir = join(root, 'add')
    expect(readReflexIndex(dir)).toEqual({ exists: false, entries: [], refused: [] })
    expect(addReflexEntry(dir, '- [Feedback](feedback.md) — commit often')).toBe(1)
    expect(addReflexEntry(dir, '  - second  ')).toBe(2)
    expect(() => addReflexEntry(dir, 'z'.repeat(201))).toThrow('line 3 would be 201 characters long (at most 200): refused')
    expect(() => addReflexEntry(dir, 'two\nlines')).toThrow(/one line/)
    expect(() => addReflexEntry(dir, '   ')).toThrow(/empty/)
    expect(readFileSync(join(dir, REFLEX_INDEX_FILE), 'utf8')).toBe('- [Feedback](feedback.md) — commit often\n- second\n')
    writeFileSync(join(dir, REFLEX_INDEX_FILE), 'no final newline')
    expect(addReflexEntry(dir, 'after')).toBe(2)
    expect(readFileSync(join(dir, REFLEX_INDEX_FILE), 'utf8')).toBe('no final newline\nafter\n')
  })

  it('lists the thematic files (not the index, no symbolic links) and reads them safely', () => {
    const dir = join(root, 'files')
    mkdirSync(join(dir, 'projects'), { recursive: true })
    writeFileSync(join(dir, REFLEX_INDEX_FILE), '- a\n')
    writeFileSync(join(dir, 'feedback.md'), '# Feedback\n')
    writeFileSync(join(dir, 'projects', 'acme.md'), 'acme')
    writeFileSync(join(dir, 'notes.txt'), 'ignored')
    writeFileSync(join(root, 'outside.md'), 'outside')
    symlinkSync(join(root, 'outside.md'), join(dir, 'linked.md'))
    expect(listReflexFiles(dir)).toEqual(['feedback.md', 'projects/acme.md'])
    expect(listReflexFiles(join(root, 'missing'))).toEqual([])
    expect(readReflexFile(dir, 'projects/acme.md')).toBe('acme')
    expect(() => readReflexFile(dir, '../outside.md')).toThrow(/not a reflex memory file path/)
    expect(() => readReflexFile(dir, '/etc/passwd.md')).toThrow(/not a reflex memory file path/)
    expect(() => readReflexFile(dir, 'linked.md')).toThrow(/symbolic links are refused/)
  })
})
