// The engine custom agents run on (issue 21): the first tools plus delegation, wired to the
// hub's ports (memory, worksites, Atlas, team mail), the `delegate` port driving child runs
// on this same engine. Shared by the hub's routes and the agents-dispatch automate; here
// (hub, the wiring layer on top) because the wiring reaches layers the engine may not import.
import type { Db } from '#db/connection'
import type { AiFacade } from '#layers/ai/core/facade'
import { customRunContext } from '#layers/agents/core/custom/access'
import { customToolRegistry, delegatePort } from '#layers/agents/core/custom/delegation'
import { draftPorts } from '#layers/agents/core/custom/draft-ports'
import type { LaunchRun } from '#layers/agents/core/custom/dispatcher'
import { startRun, type EngineDeps } from '#layers/agents/core/engine/loop'
import type { SkillRouterPort } from '#layers/agents/core/engine/skills'
import { personLimits } from '#layers/agents/core/engine/usage'
import type { Embedder } from '#layers/memory/core/vectors/embedder'
import { hubToolPorts } from './agent-ports'
import { agentFileGuards } from './agent-file-guards'
import type { FileGuards } from '#layers/agents/core/files/ports'
import { fileLimits } from '#layers/agents/core/files/limits'
import { agentFilePorts } from '#layers/agents/core/files/store'
import { createMailer, readMailConfig, type Mailer } from '#layers/atlas/core/mail/mailer'
import { readTeamSignature } from '#layers/spawn/core/config'

export interface CustomEngineInput {
  db: Db
  ai: AiFacade
  embedder: Embedder
  vaultDir: string
  env: Record<string, string | undefined>
  /** The skills library's router (none: only the skills a run is given). */
  skillRouter?: SkillRouterPort
  /** The files' antivirus, OCR and fence (the hub keeps one set, its OCR worker shared); none: built from `env`. */
  fileGuards?: FileGuards
  log: (line: string) => void
}

export function customAgentEngine(input: CustomEngineInput): EngineDeps {
  const mail = readMailConfig(input.env)
  let mailer: Mailer | undefined
  const limits = fileLimits(input.env)
  const deps: EngineDeps = {
    db: input.db,
    chat: request => input.ai.chatWithTools(request),
    flushLedger: () => input.ai.flush(),
    registry: customToolRegistry(),
    ports: {
      ...hubToolPorts({
        db: input.db,
        embedder: input.embedder,
        vaultDir: input.vaultDir,
        team: mail.team,
        signature: readTeamSignature(input.env),
        mailer: () => (mailer ??= createMailer({ config: mail, db: input.db })),
      }),
      delegate: delegatePort(() => deps),
      ...draftPorts(input.db),
      files: agentFilePorts(input.db, input.fileGuards ?? agentFileGuards({ env: input.env, maxFileBytes: limits.maxFileBytes }), limits),
    },
    limits: personLimits(input.env),
    providers: () => input.ai.providers(),
    ...(input.skillRouter ? { skillRouter: input.skillRouter } : {}),
    log: input.log,
  }
  return deps
}

/** The dispatcher's launcher: an autonomous run of the agent, driven to its end (or an approval). */
export function autonomousLauncher(deps: EngineDeps): LaunchRun {
  return async ({ codename, request }) => {
    const context = await customRunContext(deps.db, deps.registry, { codename, request, trigger: 'autonomous', surface: 'automate' })
    return (await startRun(deps, context)).id
  }
}
