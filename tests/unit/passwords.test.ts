import { describe, expect, it } from 'vitest'
import { hashPassword, verifyPassword } from '#server/core/passwords'

describe('scrypt passwords', () => {
  it('hashes with a random salt and verifies', async () => {
    const a = await hashPassword('correct horse battery')
    const b = await hashPassword('correct horse battery')
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/)
    expect(a).not.toBe(b)
    expect(await verifyPassword(a, 'correct horse battery')).toBe(true)
    expect(await verifyPassword(a, 'correct horse batterY')).toBe(false)
  })

  it('refuses malformed hashes instead of throwing', async () => {
    expect(await verifyPassword('', 'x')).toBe(false)
    expect(await verifyPassword('bcrypt$abc', 'x')).toBe(false)
  })
})
