// The skills domain's error: a machine-readable code and the HTTP status a route answers with.
export class SkillError extends Error {
  constructor(readonly code: string, message: string, readonly status = 400, readonly details: Record<string, unknown> = {}) {
    super(message)
  }
}
