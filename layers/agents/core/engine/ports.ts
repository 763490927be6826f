// What the first tools reach, passed in by the shell that wires the engine (the hub wires
// memory, worksites, Atlas and the mail facade in layers/hub/core/agent-ports.ts): the
// engine imports none of those layers.
export interface RecallPortHit { sourceType: string, sourceId: string, title: string, snippet: string, link: string | null }
export interface WorkItemHit { id: string, entity: 'chantier' | 'job' | 'task', title: string, status: string, project: string | null }
export interface MessageHit {
  id: number
  subject: string
  from: string | null
  receivedAt: string | null
  intent: string | null
  tenantId?: string | null
}

/** A chantier's, job's or task's status and owner (an agent by codename, a person by id), before or after a change. */
export interface WorkItemSnapshot { status: string, owner: { kind: 'agent', codename: string } | { kind: 'user', id: string } | null }
/** A question's, négociation's or conseil's status and resolution, before or after an answer. */
export interface RecordSnapshot { status: string, resolution: string | null, resolvedBy: string | null, resolvedAt: string | null }
export interface InboxNoteEdit { path: string, before: string, after: string }
export interface LessonLink { sourceSpawnId: string | null, tags: string[] }

/**
 * The personal agent's changes to existing records (issue 35, Deliver 4). Each write returns
 * what its undo needs; each undo puts the record back only while it is still as the write
 * left it (false otherwise: a person changed it since, and their change stands).
 */
export interface WritePorts {
  updateWorkItem: (
    input: {
      entity: 'chantier' | 'job' | 'task'
      id: string
      status?: string
      reason?: string
      owner?: { agent: string } | { email: string } | null
    },
    actor: string,
  ) => Promise<{ title: string, before: WorkItemSnapshot, after: WorkItemSnapshot }>
  restoreWorkItem: (
    input: { entity: 'chantier' | 'job' | 'task', id: string, before: WorkItemSnapshot, after: WorkItemSnapshot },
    actor: string,
  ) => Promise<boolean>
  answerRecord: (
    input: { kind: 'question' | 'negociation' | 'conseil', id: string, answer: string, outcome?: 'won' | 'lost' },
    actor: string,
  ) => Promise<{ title: string, before: RecordSnapshot, after: RecordSnapshot }>
  restoreRecord: (
    input: { kind: 'question' | 'negociation' | 'conseil', id: string, before: RecordSnapshot, after: RecordSnapshot },
    actor: string,
  ) => Promise<boolean>
  editInboxNote: (input: { path: string, body: string }, actor: string) => Promise<InboxNoteEdit>
  restoreInboxNote: (edit: InboxNoteEdit) => Promise<boolean>
  /** A reply draft on an Atlas message, for a person to edit and send themselves (never sent here). */
  draftClientReply: (
    input: { messageId: number, body: string },
    actor: string,
  ) => Promise<{ draftId: number, supersededId: number | null, subject: string, link: string }>
  withdrawClientReply: (input: { draftId: number, supersededId: number | null }, actor: string) => Promise<boolean>
  attachLesson: (input: { lessonId: number, spawnId: string }, actor: string) => Promise<{ title: string, before: LessonLink }>
  detachLesson: (input: { lessonId: number, spawnId: string, before: LessonLink }, actor: string) => Promise<boolean>
}

// Every READ port takes the run's `tenants` (clients.id): given (an allowlist run), only those
// tenants' rows and the shared (tenant-less) ones are read; an empty list reads the shared ones only.
export interface ToolPorts extends WritePorts {
  recall: (query: string, k: number, tenants?: string[] | null) => Promise<RecallPortHit[]>
  readNote: (path: string, tenants?: string[] | null) => Promise<{ path: string, title: string, body: string } | null>
  searchWorkItems: (query: string, limit: number, tenants?: string[] | null) => Promise<WorkItemHit[]>
  readWorkItem: (id: string, tenants?: string[] | null) => Promise<Record<string, unknown> | null>
  /** `tenants` given (an allowlist run): only messages of those tenants. */
  searchMessages: (query: string, limit: number, tenants?: string[] | null) => Promise<MessageHit[]>
  readMessage: (id: number, tenants?: string[] | null) => Promise<Record<string, unknown> | null>
  /** Starts a child run of another custom agent and drives it (delegate_to_agent); absent: no delegation. */
  delegate?: (
    input: { codename: string, request: string, context: string },
    parent: { runId: string, context: import('./context').RunContext },
  ) => Promise<{ runId: string, status: string, answer: string | null }>
  agentBriefing: (codename: string, task: string, tenants?: string[] | null) => Promise<{ codename: string, text: string } | null>
  createTask: (input: { jobId: string, title: string, description: string }, actor: string) => Promise<{ id: string, title: string }>
  /** Undo of createTask: deletes the task; false when it is gone or a spawn already works on it. */
  deleteCreatedTask: (id: string) => Promise<boolean>
  writeInboxNote: (input: { name: string, body: string }, actor: string) => Promise<{ path: string }>
  deleteInboxNote: (path: string) => Promise<boolean>
  queueSpawn: (taskId: string, actor: string) => Promise<{ spawnId: string, messageId: number }>
  /** The internal team's addresses (the only recipients a team mail may have). */
  teamEmails: () => Promise<string[]>
  sendTeamMail: (mail: { to: string[], subject: string, body: string }, actor: string) => Promise<{ messageId: string | null }>
  /** Stores a proposed change of the owner's active instructions (never changes the document). */
  proposeInstructionChange: (input: {
    ownerEmail: string
    body: string
    reason: string
    runId: string
    proposedBy: string
  }) => Promise<{ proposalId: string, instructionId: string, baseVersion: number, diff: string }>
  /** Undo of a proposal: deletes it while it is pending; false once the person decided. */
  withdrawInstructionProposal: (id: string) => Promise<boolean>
  /** Stores a draft skill of the owner (not routed, not enabled) for them to review and save in the library. */
  draftSkill: (input: {
    ownerEmail: string
    name: string
    description: string
    body: string
    tags: string[]
  }) => Promise<{ skillId: number, name: string, link: string }>
  /** Undo of a draft: deletes it while it is still a draft; false once the person saved it. */
  discardDraftSkill: (skillId: number) => Promise<boolean>
  /** Stores a custom agent's draft for the person to review and save (never an agent); absent: no drafting. */
  draftCustomAgent?: (
    input: import('../custom/drafts').DraftInput & { ownerEmail: string, role: import('./vocabulary').PersonRole, runId: string },
  ) => Promise<{ draftId: string, link: string, suggestedTools: string[], refusedTools: Array<{ name: string, reason: string }> }>
  /** Undo of a draft: discards it while it is a draft; false once the person saved it. */
  discardCustomAgentDraft?: (draftId: string) => Promise<boolean>
  /** The agent files (read_uploaded_file, produce_file); absent: the tools answer that files are unavailable. */
  files?: import('../files/store').AgentFilePorts
}
