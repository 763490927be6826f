import { seesActivityOf } from '#layers/agents/core/custom/sharing'
import { RunIdParams } from '#layers/agents/core/engine/api'
import { contentDisposition, downloadFile } from '#layers/agents/core/files/store'

// A file given to or produced by a run, downloaded by those who may see the run (its page's
// rule); anyone else gets 404, never 403 (the file's existence is not revealed). Always an
// attachment, never rendered by the browser.
export default defineEventHandler(async (event) => {
  const { id } = agentParams(event, RunIdParams)
  const user = currentUser(event)
  const db = await useDb()
  const file = await agentCall(async () => downloadFile(db, user, id, agent => seesActivityOf(db, user, agent)))
  const textual = file.contentType.startsWith('text/') || file.contentType === 'application/json'
  setResponseHeader(event, 'content-type', textual ? `${file.contentType}; charset=utf-8` : file.contentType)
  setResponseHeader(event, 'content-disposition', contentDisposition(file.name))
  setResponseHeader(event, 'cache-control', 'private, no-store')
  return file.content
})
