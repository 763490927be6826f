import { listReflexFiles, readReflexIndex } from '#layers/memory/core/reflex'
import { readReflexSource } from '#layers/memory/core/reflex-editor'

// The reflex memory (level 1): the index entries, the lines refused (over 200 characters),
// the thematic files, and the index's text with its SHA-256 for the hub's editor.
export default defineEventHandler(() => {
  const { reflexDir } = useMemoryConfig()
  return { dir: reflexDir, index: readReflexIndex(reflexDir), files: listReflexFiles(reflexDir), source: readReflexSource(reflexDir) }
})
