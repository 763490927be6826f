import { describe, expect, it } from 'vitest'
import { withDeadline } from '#layers/base/core/deadline'

describe('withDeadline', () => {
  it('answers the work when it settles in time, its failure included', async () => {
    expect(await withDeadline(Promise.resolve('done'), 50, () => 'late')).toBe('done')
    await expect(withDeadline(Promise.reject(new Error('boom')), 50, () => 'late')).rejects.toThrow('boom')
  })

  it('answers what late() answers, or throws, once the time is up', async () => {
    const slow = new Promise<string>(resolve => setTimeout(() => resolve('done'), 200))
    expect(await withDeadline(slow, 10, () => 'late')).toBe('late')
    await expect(withDeadline(slow, 10, () => {
      throw new Error('took too long')
    })).rejects.toThrow('took too long')
  })
})
