// The root app's route inputs (signing in, changing one's password), shared by those routes
// and the API document (GET /api/openapi.json). Framework-free.
import { z } from 'zod'
import type { ApiSchemaMap } from '#layers/base/core/api-schema-map'

export const LoginBody = z.object({
  email: z.string().trim().min(3).max(320),
  password: z.string().min(1).max(1024),
})

export const PasswordChangeBody = z.object({
  currentPassword: z.string().min(1).max(1024),
  newPassword: z.string().min(1).max(1024),
})

export const apiSchemas: ApiSchemaMap = {
  'POST /api/auth/login': { summary: 'Sign in: sets the session cookie', body: LoginBody },
  'POST /api/auth/password': { summary: 'Change your own password', body: PasswordChangeBody },
}
