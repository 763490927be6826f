import { z } from 'zod'
import { authenticate } from '../../core/users'
import { recordAudit } from '../../../db/audit'

const Body = z.object({
  email: z.string().trim().min(3).max(320),
  password: z.string().min(1).max(1024),
})

export default defineEventHandler(async (event) => {
  const { email, password } = await readValidatedBody(event, Body.parse)
  const db = await useDb()
  const user = await authenticate(db, email, password)
  if (!user) {
    throw createError({ statusCode: 401, statusMessage: 'Wrong email or password.', data: { code: 'invalid_credentials' } })
  }
  await setUserSession(event, { user: { id: user.id, email: user.email, name: user.name, role: user.role } })
  await recordAudit(db, { actor: user.email, action: 'signed_in' })
  return { user: { id: user.id, email: user.email, name: user.name, role: user.role } }
})
