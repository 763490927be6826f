import { projectBoard } from '#layers/worksites/core/board'

// Any signed-in role: the project's board, one column per task status, cards by position.
export default defineEventHandler(async (event) => {
  const { id } = await worksitesParams(event, IdParams)
  return await worksitesCall(async () => projectBoard(await useDb(), id))
})
