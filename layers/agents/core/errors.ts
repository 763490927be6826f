// Errors of the agents domain, with a machine-readable code the routes and CLIs pass on.
export class AgentsError extends Error {
  constructor(readonly code: 'unknown_agent' | 'bad_domain' | 'bad_filter' | 'bad_outcome' | 'bad_state' | 'bad_briefing_input', message: string) {
    super(message)
    this.name = 'AgentsError'
  }
}
