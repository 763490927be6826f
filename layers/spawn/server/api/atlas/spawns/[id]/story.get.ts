import { z } from 'zod'
import { readSpawnConfig } from '#layers/spawn/core/config'
import { spawnPaths } from '#layers/spawn/core/run-agent'
import { databaseLoopRecords } from '#layers/spawn/core/spawn-loop-records'
import { spawnStory } from '#layers/spawn/core/spawn-story'

const Params = z.object({ id: z.uuid() })

// Any signed-in role: one spawn's whole story (message, routed agent, briefing as sent with
// the lessons it carried, figures, deploy, QA, the loop, the lessons it produced).
export default defineEventHandler(async (event) => {
  const { id } = await getValidatedRouterParams(event, Params.parse)
  const db = await useDb()
  // A spawn configuration the workers refuse still leaves the story readable, without the file.
  let tmpDir: string | null = null
  let configProblem = ''
  try {
    tmpDir = readSpawnConfig(process.env).tmpDir
  }
  catch (error) {
    configProblem = (error as Error).message
  }
  const systemPromptFile = (spawnId: string) => {
    if (tmpDir === null) throw new Error(`the spawn configuration is refused: ${configProblem}`)
    return spawnPaths(tmpDir, spawnId).systemPromptFile
  }
  const story = await spawnStory({ db, systemPromptFile, records: databaseLoopRecords(db) }, id)
  if (!story) throw createError({ statusCode: 404, statusMessage: `No spawn ${id}.`, data: { code: 'not_found' } })
  return story
})
