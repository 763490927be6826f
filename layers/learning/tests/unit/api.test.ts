// The learning routes' input shapes: tags as a real array (or the PostgreSQL literal), a list
// written as text refused by name, each bad tag named by its position.
import { describe, expect, it } from 'vitest'
import { LessonCreate, ModifyBody } from '../../shared/api'

const base = { kind: 'scar', title: 'A title', description: 'What happened, at length.' }
const issue = (value: unknown) => {
  const parsed = LessonCreate.safeParse(value)
  return parsed.success ? null : { path: parsed.error.issues[0]!.path.join('.'), message: parsed.error.issues[0]!.message }
}

describe('lesson input', () => {
  it('takes tags as an array, a PostgreSQL literal or comma-separated text, lower-cased', () => {
    expect(LessonCreate.parse({ ...base, tags: ['Deploy', 'ci'] }).tags).toEqual(['deploy', 'ci'])
    expect(LessonCreate.parse({ ...base, tags: '{deploy,"ci"}' }).tags).toEqual(['deploy', 'ci'])
    expect(LessonCreate.parse({ ...base, tags: 'deploy, ci' }).tags).toEqual(['deploy', 'ci'])
    expect(LessonCreate.parse({ ...base, tags: '{}' }).tags).toEqual([])
    expect(LessonCreate.parse(base).tags).toEqual([])
  })

  it('names the problem of a bad tag list', () => {
    expect(issue({ ...base, tags: '[\'a\', \'b\']' })).toMatchObject({ path: 'tags', message: expect.stringMatching(/a list written as text/) })
    expect(issue({ ...base, tags: ['ok', 'not ok'] })).toMatchObject({ path: 'tags.1', message: expect.stringMatching(/no space/) })
    expect(issue({ ...base, tags: ['a', 'A'] })).toMatchObject({ path: 'tags', message: 'tags: a tag is repeated' })
    expect(issue({ ...base, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) })).toMatchObject({ message: 'tags: at most 20' })
    expect(issue({ ...base, tags: [42] })).toMatchObject({ path: 'tags.0' })
    expect(issue({ ...base, kind: 'disaster' })).toMatchObject({ path: 'kind' })
    expect(issue({ ...base, extra: 1 })).not.toBeNull()
  })

  it('a modification changes something', () => {
    expect(ModifyBody.safeParse({}).success).toBe(false)
    expect(ModifyBody.safeParse({ destination: 'telepathy' }).success).toBe(false)
    expect(ModifyBody.parse({ diffAfter: 'x' })).toEqual({ diffAfter: 'x' })
  })
})
