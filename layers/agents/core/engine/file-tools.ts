// The files tools (issue 35, Deliver 3; seed §15): read_uploaded_file (READ) gives the model
// the text of a file the person gave the run or its conversation — fenced as untrusted data,
// a page at a time; an image's OCR text reaches the model only, never the run's rows — and produce_file (WRITE) leaves a text file on the
// run for the person to
// download from the run page; its undo deletes the file. Both reach the files through the
// `files` port; a hub without it offers the tools but answers that files are unavailable.
import { z } from 'zod'
import { PRODUCED_TYPES, type AgentFilePorts } from '../files/store'
import { EngineError } from './errors'
import { defineTool, ToolError, type ToolRunContext } from './tools'

const filesOf = (ports: ToolRunContext['ports']): AgentFilePorts => {
  if (!ports.files) throw new ToolError('no_files', 'files are not available on this hub')
  return ports.files
}

/** The files port's refusals reach the model as tool errors (a step error, not a crash). */
async function asTool<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  }
  catch (error) {
    if (error instanceof EngineError) throw new ToolError(error.code, error.message)
    throw error
  }
}

export const FILE_TOOLS = [
  defineTool({
    name: 'read_uploaded_file',
    description: 'Read the text of a file the person uploaded (PDF, DOCX, CSV, text, or an image read by OCR), by its id from the working context; long files are read a page at a time with offset.',
    class: 'READ',
    input: z.object({ id: z.string().uuid(), offset: z.number().int().min(0).max(10_000_000).default(0) }),
    run: async (input, { ports, runId }) => {
      const read = await asTool(() => filesOf(ports).read(runId, input.id, input.offset))
      return {
        output: read.text,
        sources: [{ kind: 'uploaded_file', ref: input.id, title: read.name }],
        // An image's text reaches the model and nothing else: the run keeps a note that it was read (as Atlas does with OCR).
        ...(read.ocr ? { unstored: `The text of the image ${read.name} was read by OCR and shown to the model only; it is not stored (read the file again to see it).` } : {}),
      }
    },
  }),
  defineTool({
    name: 'produce_file',
    description: 'Produce a text file (plain text, Markdown, CSV or JSON) the person downloads from the run page: a name and the full content.',
    class: 'WRITE',
    undo: 'snapshot',
    input: z.object({
      name: z.string().trim().min(1).max(120),
      type: z.enum(Object.keys(PRODUCED_TYPES) as [keyof typeof PRODUCED_TYPES, ...Array<keyof typeof PRODUCED_TYPES>]),
      content: z.string().min(1).max(1_000_000),
    }),
    run: async (input, { ports, runId }) => {
      const file = await asTool(() => filesOf(ports).produce(runId, input))
      return {
        output: { id: file.id, name: file.name, type: file.contentType, size: file.size, note: 'Listed on the run page for the person to download.' },
        write: { entity: 'agent_file', id: file.id, snapshot: null, undoable: true },
      }
    },
    revert: async (write, { ports }) => {
      if (!await filesOf(ports).remove(write.id)) throw new ToolError('undo_refused', 'the file is gone')
    },
  }),
]
