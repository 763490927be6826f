import { describe, expect, it } from 'vitest'
import { extractWikiLinks, linkNames, linkTargets } from '../../core/vault/links'

describe('wiki links', () => {
  it('extracts targets without alias or heading, embeds included, deduplicated in order', () => {
    expect(extractWikiLinks('[[a]] [[b|alias]] [[c#section]] ![[d]] [[a]] [[ e ]] [[]] [[f#]] [[#only-heading]]')).toEqual(['a', 'b', 'c', 'd', 'e', 'f'])
    expect(extractWikiLinks('[[broken\nacross lines]] [single] [[nested [[x]]]]')).toEqual(['x'])
  })

  it('a note answers to its file name, its path with or without the sub-space, and its title', () => {
    expect(linkNames('permanent/topics/RRF.md', 'Reciprocal Rank Fusion')).toEqual(['rrf', 'topics/rrf', 'permanent/topics/rrf', 'reciprocal rank fusion'])
    expect(linkTargets('RRF', 'permanent/topics/rrf.md')).toBe(true)
    expect(linkTargets('topics/rrf.md', 'permanent/topics/rrf.md')).toBe(true)
    expect(linkTargets('Reciprocal Rank Fusion', 'permanent/topics/rrf.md')).toBe(false)
    expect(linkTargets('Reciprocal Rank Fusion', 'permanent/topics/rrf.md', 'Reciprocal Rank Fusion')).toBe(true)
    expect(linkTargets('rr', 'permanent/topics/rrf.md')).toBe(false)
  })
})
