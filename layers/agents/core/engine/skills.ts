// The run's skills (seed 003 §13.2–§13.3, issue 21 Deliver 3–4) as the engine sees them: a
// port the hub wires to the skills library (layers/skills), so the engine imports no higher
// layer. The port decides the skills when a run is created; the engine writes the decision
// as a `skills` step, puts the skills in the prompt's skills layer, narrows the tools to the
// intersection the skills allow (never a widening) and names the skills in the answer (I5).

export interface SelectedSkill {
  id: number
  name: string
  mode: 'forced' | 'auto' | 'model'
  /** The body and the shareable files' relevant extracts, within budget. */
  text: string
  /** The tools this skill allows; null = no restriction declared. */
  allowedTools: string[] | null
}

export interface SkillSelection {
  skills: SelectedSkill[]
  /** The router's decision (branch, kept, dropped, scores), written as the run's step. */
  decision: Record<string, unknown>
}

export interface SkillRouterPort {
  select: (input: {
    email: string
    request: string
    /** Names the caller forced (besides the request's `/name` words). */
    forced: string[]
    /** The run's model choosing among candidates; absent when offline (deterministic branches only). */
    choose?: (request: string, candidates: Array<{ name: string, description: string }>) => Promise<string[]>
  }) => Promise<SkillSelection>
  /** Counts the use (the library sorts by real use). */
  recordUse: (runId: string, email: string, skills: SelectedSkill[]) => Promise<void>
}

/** The intersection of the skills' declared tools; null when no skill restricts. */
export function skillToolLimit(skills: Array<{ allowedTools: string[] | null }>, current: string[] | null = null): string[] | null {
  let limit = current
  for (const skill of skills) {
    if (!skill.allowedTools) continue
    limit = limit ? limit.filter(tool => skill.allowedTools!.includes(tool)) : [...skill.allowedTools]
  }
  return limit
}

/** I5: the answer names the skills that shaped it (appended when the model did not). */
export function nameSkills(answer: string, names: string[]): string {
  const missing = names.filter(name => !answer.includes(name))
  return missing.length === 0 ? answer : `${answer}\n\n_Skill${names.length > 1 ? 's' : ''} used: ${names.join(', ')}_`
}

/**
 * Every name the model's pick says — a JSON array of names, or names separated by spaces,
 * commas or lines — whether or not it is a candidate (the router keeps only candidates and
 * logs the rest), at most 20, each at most 64 characters.
 */
export function namesInChoice(content: string): string[] {
  return parseChoice(content, null).slice(0, 20).map(name => name.slice(0, 64))
}

/** Parses the model's pick: a JSON array of names, or names one per line; only candidates count (all names when `candidates` is null). */
export function parseChoice(content: string, candidates: string[] | null): string[] {
  const found = content.match(/\[[^\]]*\]/)
  let names: string[] = []
  if (found) {
    try {
      const parsed = JSON.parse(found[0]) as unknown
      if (Array.isArray(parsed)) names = parsed.filter((x): x is string => typeof x === 'string')
    }
    catch {
      names = []
    }
  }
  if (names.length === 0) names = content.split(/[\s,]+/)
  return names.map(name => name.trim().replace(/^\//, '')).filter(name => name !== '' && (candidates === null || candidates.includes(name)))
}
