import { describe, expect, it } from 'vitest'
import { memoryConfig } from '../../core/config'
import { parseScope, ScopeError, sourceLink, SOURCE_TYPES } from '../../core/sources'
import { CHUNK_MAX_CHARS, chunkText, fingerprint, joinParts, vectorLiteral } from '../../core/vectors/chunk'

describe('scopes', () => {
  it('all (or nothing) is every source type', () => {
    expect(parseScope(undefined)).toEqual([...SOURCE_TYPES])
    expect(parseScope(' ALL ')).toEqual([...SOURCE_TYPES])
    expect(SOURCE_TYPES).toHaveLength(11)
  })

  it('accepts types, plurals and the seed\'s names, in the canonical order, deduplicated', () => {
    expect(parseScope('procedure,scars')).toEqual(['scar', 'procedure'])
    expect(parseScope('protocols, history ,reference,work,kb,scar')).toEqual(['scar', 'reflex', 'note', 'project', 'procedure', 'iteration'])
  })

  it('refuses unknown names and empty lists', () => {
    expect(() => parseScope('gossip')).toThrow(new ScopeError('unknown scope "gossip": use all, or one or more of scar, victory, reflex, note, doctrine, project, agent, drill, procedure, iteration, skill (comma-separated)'))
    expect(() => parseScope(',,')).toThrow(/empty scope/)
  })

  it('links each source to its hub page', () => {
    expect(sourceLink('note', 'inbox/a b.md')).toBe('/hub/memory/vault?note=inbox%2Fa%20b.md')
    expect(sourceLink('agent', 'seo-technique')).toBe('/hub/agents/seo-technique')
    expect(sourceLink('skill', '12')).toBe('/hub/skills/12')
    // No page shows a lesson yet: no link rather than a dead end.
    expect(sourceLink('scar', '12')).toBeNull()
  })
})

describe('chunks', () => {
  it('one chunk per document: trimmed, CRLF normalised, truncated past the threshold', () => {
    expect(chunkText('  a\r\nb  ')).toBe('a\nb')
    expect(chunkText('x'.repeat(CHUNK_MAX_CHARS + 10))).toHaveLength(CHUNK_MAX_CHARS)
    const emoji = `${'x'.repeat(9)}🙂tail`
    expect(chunkText(emoji, 10)).toBe('x'.repeat(9))
    expect(joinParts('a', null, ' ', 'b ', undefined)).toBe('a\n\nb')
  })

  it('fingerprints with SHA-256 of the exact text', () => {
    expect(fingerprint('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
    expect(fingerprint('abc ')).not.toBe(fingerprint('abc'))
  })

  it('writes pgvector literals only for vectors of the right size and finite values', () => {
    expect(vectorLiteral([0.5, -1, 0], 3)).toBe('[0.5,-1,0]')
    expect(() => vectorLiteral([1, 2], 3)).toThrow('expected a 3-dimension vector, got 2')
    expect(() => vectorLiteral([1, Number.NaN, 2], 3)).toThrow(/non-finite/)
  })
})

describe('memory configuration', () => {
  it('VAULT_DIR and REFLEX_DIR default under DATA_DIR (or ./.data), relative paths from the working folder', () => {
    expect(memoryConfig({}, '/srv/app')).toEqual({ vaultDir: '/srv/app/.data/vault', reflexDir: '/srv/app/.data/reflex' })
    expect(memoryConfig({ DATA_DIR: '/var/lib/synedre' }, '/srv/app')).toEqual({ vaultDir: '/var/lib/synedre/vault', reflexDir: '/var/lib/synedre/reflex' })
    expect(memoryConfig({ VAULT_DIR: 'notes', REFLEX_DIR: '/home/me/reflex', DATA_DIR: ' ' }, '/srv/app')).toEqual({ vaultDir: '/srv/app/notes', reflexDir: '/home/me/reflex' })
  })
})
