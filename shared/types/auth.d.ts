import type { HubRole } from '#db/schema/hub'

declare module '#auth-utils' {
  interface UserSession {
    /** hub_users.session_version when the cookie was sealed (server/core/sessions.ts). */
    version?: number
  }

  interface User {
    id: string
    email: string
    name: string
    role: HubRole
  }
}

export {}
