// The agents routes' zod schemas, lent to the API document (GET /api/openapi.json): each entry
// names the schema its route validates with, where that schema lives next to its logic.
// Framework-free.
import type { ApiSchemaMap } from '#layers/base/core/api-schema-map'
import { AgentsQuery, BriefingQuery, CodenameParams as AgentCodenameParams } from './api'
import { ConfigBody, CreateCustomBody } from './custom/agents'
import { CodenameParams, DuplicateBody, KillBody, TestRunBody, VersionParams } from './custom/api'
import { SaveDraftBody } from './custom/drafts'
import { RevokeBody, ShareBody } from './custom/sharing'
import { StudioPolicyBody } from './custom/studio-policy'
import { ApprovalParams, DecisionBody, RunIdParams, StandingBody, StartRunBody, StepParams } from './engine/api'
import { ChatBody } from './engine/chat'
import { ModelChoiceBody, SurfaceModelsBody, SurfaceParams } from './engine/models'
import { ClassifyBody, ServerBody, ServerParams } from './mcp/config'
import { CreateInstructionBody, SaveInstructionBody, UpdateInstructionBody } from './instructions/documents'
import { DecideProposalBody } from './instructions/proposals'

export const apiSchemas: ApiSchemaMap = {
  'GET /api/agents': { query: AgentsQuery },
  'GET /api/agents/{codename}/briefing': { params: AgentCodenameParams, query: BriefingQuery },
  'POST /api/agents/runs': { summary: 'Start a run of your personal agent', body: StartRunBody },
  'GET /api/agents/runs/{id}': { params: RunIdParams },
  'GET /api/agents/runs/{id}/stream': { params: RunIdParams },
  'POST /api/agents/runs/{id}/rerun': { params: RunIdParams },
  'POST /api/agents/runs/{id}/approvals/{approval}': { params: ApprovalParams, body: DecisionBody },
  'POST /api/agents/runs/{id}/steps/{step}/undo': { params: StepParams },
  'POST /api/agents/chat': { body: ChatBody },
  'POST /api/agents/files': { summary: 'Upload files for your agent (multipart/form-data: scanned, typed from their bytes, their text extracted)' },
  'GET /api/agents/files/{id}': { summary: 'Download a file of a run you may see', params: RunIdParams },
  'GET /api/agents/chat/conversations/{id}': { params: RunIdParams },
  'POST /api/agents/standing-approvals': { body: StandingBody },
  'POST /api/agents/standing-approvals/revoke': { body: StandingBody },
  'PUT /api/agents/model-choice': { body: ModelChoiceBody },
  'PUT /api/agents/models/{surface}': { params: SurfaceParams, body: SurfaceModelsBody },
  'PUT /api/agents/studio-policy': { body: StudioPolicyBody },
  'POST /api/agents/mcp': { summary: 'Add or change an MCP server (founders)', body: ServerBody },
  'POST /api/agents/mcp/{name}/reconnect': { params: ServerParams },
  'PUT /api/agents/mcp/{name}/tools': { summary: 'Classify an MCP server\'s tool (founders)', params: ServerParams, body: ClassifyBody },
  'POST /api/agents/custom': { body: CreateCustomBody },
  'GET /api/agents/custom/{codename}': { params: CodenameParams },
  'PUT /api/agents/custom/{codename}': { params: CodenameParams, body: ConfigBody },
  'POST /api/agents/custom/{codename}/runs': { summary: 'Run a custom agent (its Chat tab)', params: CodenameParams, body: TestRunBody },
  'POST /api/agents/custom/{codename}/kill': { params: CodenameParams, body: KillBody },
  'POST /api/agents/custom/{codename}/duplicate': { params: CodenameParams, body: DuplicateBody },
  'POST /api/agents/custom/{codename}/shares': { params: CodenameParams, body: ShareBody },
  'DELETE /api/agents/custom/{codename}/shares': { params: CodenameParams, body: RevokeBody },
  'POST /api/agents/custom/{codename}/versions/{version}/restore': { params: VersionParams },
  'POST /api/agents/custom-drafts/{id}/save': { body: SaveDraftBody },
  'POST /api/agents/instructions': { body: CreateInstructionBody },
  'PATCH /api/agents/instructions/{id}': { body: UpdateInstructionBody },
  'POST /api/agents/instructions/{id}/versions': { body: SaveInstructionBody },
  'POST /api/agents/instructions/{id}/proposals/{proposal}': { body: DecideProposalBody },
}
