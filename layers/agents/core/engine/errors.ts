// The engine's refusals, each with a machine-readable code and the HTTP status a route answers.
export class EngineError extends Error {
  constructor(readonly code: string, message: string, readonly status = 400, readonly details: Record<string, unknown> = {}) {
    super(message)
    this.name = 'EngineError'
  }
}
