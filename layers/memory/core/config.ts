// Where the memory lives on disk: the vault (level 2) and the reflex memory (level 1).
//   VAULT_DIR   default <DATA_DIR or ./.data>/vault
//   REFLEX_DIR  default <DATA_DIR or ./.data>/reflex
import { isAbsolute, join, resolve } from 'node:path'

export interface MemoryConfig {
  vaultDir: string
  reflexDir: string
}

type Env = Readonly<Record<string, string | undefined>>

function folder(value: string | undefined, fallback: string, cwd: string): string {
  const chosen = value?.trim() || fallback
  return isAbsolute(chosen) ? chosen : resolve(cwd, chosen)
}

export function memoryConfig(env: Env, cwd: string = process.cwd()): MemoryConfig {
  const dataDir = folder(env.DATA_DIR, '.data', cwd)
  return {
    vaultDir: folder(env.VAULT_DIR, join(dataDir, 'vault'), cwd),
    reflexDir: folder(env.REFLEX_DIR, join(dataDir, 'reflex'), cwd),
  }
}
