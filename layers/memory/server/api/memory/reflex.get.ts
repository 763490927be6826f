import { listReflexFiles, readReflexIndex } from '../../../core/reflex'

// The reflex memory (level 1): the index entries, the lines refused (over 200 characters)
// and the thematic files.
export default defineEventHandler(() => {
  const { reflexDir } = useMemoryConfig()
  return { dir: reflexDir, index: readReflexIndex(reflexDir), files: listReflexFiles(reflexDir) }
})
