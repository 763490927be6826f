// The vault's layout: one folder per sub-space under VAULT_DIR. Only the inbox is written by
// automates; the permanent zone only by a human action in the hub (see promote.ts).
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { MEM_VAULT_SPACES, type MemVaultSpace } from '#db/schema/mem'

export { MEM_VAULT_SPACES as VAULT_SPACES, type MemVaultSpace as VaultSpace }

export const SPACE_LABELS: Record<MemVaultSpace, string> = {
  permanent: 'Permanent notes',
  inbox: 'Inbox (drafts)',
  toc: 'Tables of contents',
  daily: 'Daily logs',
  ephemeral: 'Ephemeral notes',
}

export const NOTE_EXTENSION = '.md'

export function isVaultSpace(value: string): value is MemVaultSpace {
  return (MEM_VAULT_SPACES as readonly string[]).includes(value)
}

/** Creates the sub-space folders that are missing (idempotent). */
export function ensureVaultLayout(vaultDir: string): void {
  for (const space of MEM_VAULT_SPACES) mkdirSync(join(vaultDir, space), { recursive: true })
}
