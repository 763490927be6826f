import type { HubRole } from '../../db/schema/hub'

declare module '#auth-utils' {
  interface User {
    id: string
    email: string
    name: string
    role: HubRole
  }
}

export {}
