import { describe, expect, it } from 'vitest'
import { memoryApiError, NotesQuery, PromoteBody, RecallQuery } from '../../core/api'
import { RecallInputError } from '../../core/recall/engine'
import { ScopeError } from '../../core/sources'
import { VaultPathError } from '../../core/vault/paths'
import { PromoteError } from '../../core/vault/promote'

describe('memory API', () => {
  it('checks the recall query string, with the defaults', () => {
    expect(RecallQuery.parse({ q: ' smoke ' })).toEqual({ q: 'smoke', k: 5, mode: 'hybrid', floor: 'flag' })
    expect(RecallQuery.parse({ q: 'x', k: '12', mode: 'lex', scope: 'scars', agent: 'backend', tenant: 'acme', floor: 'drop' })).toEqual({ q: 'x', k: 12, mode: 'lex', scope: 'scars', agent: 'backend', tenant: 'acme', floor: 'drop' })
    for (const bad of [{}, { q: ' ' }, { q: 'x', k: '0' }, { q: 'x', k: '101' }, { q: 'x', k: 'ten' }, { q: 'x', mode: 'fuzzy' }, { q: 'x'.repeat(2001) }, { q: 'x', floor: 'hide' }, { q: 'x', tenant: 'a'.repeat(65) }]) {
      expect(RecallQuery.safeParse(bad).success, JSON.stringify(bad).slice(0, 40)).toBe(false)
    }
    expect(NotesQuery.safeParse({ space: 'attic' }).success).toBe(false)
    expect(PromoteBody.safeParse({ path: '' }).success).toBe(false)
  })

  it('turns core errors into 4xx answers with a machine-readable code', () => {
    expect(memoryApiError(new RecallInputError('the query is empty'))).toEqual({ statusCode: 400, statusMessage: 'the query is empty', data: { code: 'bad_recall_input' } })
    expect(memoryApiError(new ScopeError('unknown scope "x"'))).toMatchObject({ statusCode: 400, data: { code: 'bad_scope' } })
    expect(memoryApiError(new VaultPathError('../x.md', 'refused'))).toMatchObject({ statusCode: 400, statusMessage: '../x.md: refused', data: { code: 'bad_vault_path' } })
    expect(memoryApiError(new PromoteError('not_found', 'gone'))).toMatchObject({ statusCode: 404, data: { code: 'not_found' } })
    expect(memoryApiError(new PromoteError('exists', 'taken'))).toMatchObject({ statusCode: 409, data: { code: 'exists' } })
    expect(memoryApiError(new PromoteError('broken_frontmatter', 'bad'))).toMatchObject({ statusCode: 422 })
    expect(memoryApiError(new PromoteError('not_inbox', 'no'))).toMatchObject({ statusCode: 400 })
    expect(memoryApiError(new Error('database down'))).toBeNull()
  })
})
