import { fileLimits } from '#layers/agents/core/files/limits'
import { uploadFiles } from '#layers/agents/core/files/uploads'

// Uploads for the agents (the chat's paperclip, a custom agent run's inputs): multipart/form-data,
// every part with a file name is a file (the request guard admits this route's multipart body up
// to the files' limits). Scanned by ClamAV before anything reads them, typed from their bytes,
// their text extracted; answered with their ids, which a chat turn or a run then names (fileIds).
// Refusals: 413 (size, count), 415 (type), 422 `infected` or `unreadable_file`, 429 (quota).
export default defineEventHandler(async (event) => {
  const user = currentUser(event)
  const form = await readMultipartFormData(event)
  const parts = (form ?? []).filter(part => part.filename !== undefined).map(part => ({ name: part.filename!, bytes: part.data }))
  return await agentCall(async () => {
    const db = await useDb()
    const files = await uploadFiles(db, useAgentFileGuards(), fileLimits(process.env), user, parts)
    setResponseStatus(event, 201)
    return { files }
  })
})
