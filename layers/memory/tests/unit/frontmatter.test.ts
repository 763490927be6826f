import { describe, expect, it } from 'vitest'
import { NoteParseError, parseFrontmatter, parseNote, splitFrontmatter } from '../../core/vault/frontmatter'

describe('frontmatter', () => {
  it('splits the YAML block from the body (LF, CRLF, BOM, "..." closing, none)', () => {
    expect(splitFrontmatter('---\na: 1\n---\nbody\n')).toEqual({ yaml: 'a: 1\n', body: 'body\n' })
    expect(splitFrontmatter('---\r\na: 1\r\n---\r\nbody')).toEqual({ yaml: 'a: 1\r\n', body: 'body' })
    expect(splitFrontmatter('\uFEFF---\na: 1\n...\nbody')).toEqual({ yaml: 'a: 1\n', body: 'body' })
    expect(splitFrontmatter('# Title\n---\nnot frontmatter\n---\n')).toEqual({ yaml: null, body: '# Title\n---\nnot frontmatter\n---\n' })
    expect(splitFrontmatter('---\n---\nempty block')).toEqual({ yaml: '', body: 'empty block' })
  })

  it('refuses an unterminated block, invalid YAML, duplicate keys and non-mappings, naming the problem', () => {
    expect(() => splitFrontmatter('---\na: 1\nno end')).toThrow(new NoteParseError('frontmatter opened with --- is never closed'))
    expect(() => parseFrontmatter('title: [unbalanced\n')).toThrow(/^invalid YAML frontmatter/)
    expect(() => parseFrontmatter('a: 1\na: 2\n')).toThrow(/invalid YAML frontmatter.*(unique|duplicate)/i)
    expect(() => parseFrontmatter('- a\n- b\n')).toThrow('frontmatter is not a mapping of keys to values')
    expect(() => parseFrontmatter('just a string')).toThrow('frontmatter is not a mapping')
  })

  it('keeps values JSON-safe: dates stay text, non-finite numbers become null', () => {
    expect(parseFrontmatter('created: 2026-01-02\nn: .inf\nlist: [1, two]\n')).toEqual({ created: '2026-01-02', n: null, list: [1, 'two'] })
    expect(parseFrontmatter('')).toEqual({})
    expect(parseFrontmatter('# only a comment\n')).toEqual({})
  })

  it('title: frontmatter, else the first level-1 heading, else the file name; type and tags normalised', () => {
    expect(parseNote('---\ntitle: "  Declared "\ntype: concept\ntags: [a, "#b", a, 3]\n---\n# Heading\n', 'x.md')).toMatchObject({ title: 'Declared', type: 'concept', tags: ['a', 'b', '3'] })
    expect(parseNote('intro\n# Heading here ##\nbody', 'x.md')).toMatchObject({ title: 'Heading here', type: null, tags: [], frontmatter: {} })
    expect(parseNote('## not level one\nbody', 'file-name.md').title).toBe('file-name')
    expect(parseNote('---\ntags: one, two #a YAML comment\ntype: 42\n---\n', 'x.md')).toMatchObject({ tags: ['one', 'two'], type: null })
    expect(parseNote('---\ntitle: T\n---\nSee [[a]] and [[b|B]].', 'x.md').links).toEqual(['a', 'b'])
  })
})
