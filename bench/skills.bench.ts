// Skills: routing one request among 1,000 enabled skills (issue 21, goal p95 < 30 ms). The
// index (stems + offline vectors of name + description) is built once per library state, as
// the engine's router port does; what is measured is one routing decision: the hybrid recall
// (lexical + vector arms, RRF k = 60, top 8) and the thresholds, offline (no model call).
import { buildSkillIndex, routeSkills, type RoutableSkill } from '../layers/skills/core/router'
import { percentile, sample, type BenchFigure } from './lib'

const SKILLS = 1000
const REQUESTS = 400

function generator(seed: number) {
  const vocabulary = ['recap', 'meeting', 'invoice', 'client', 'email', 'bug', 'report', 'sprint', 'backlog', 'deploy', 'rollback', 'schema', 'database', 'test', 'review', 'security', 'churn', 'cohort', 'contract', 'clause', 'offer', 'hiring', 'release', 'notes', 'agenda', 'estimate', 'budget', 'compte', 'rendu', 'réunion', 'facture', 'devis', 'planifier', 'traduire', 'résumer', 'document', 'incident', 'panne', 'support', 'ticket', 'vendor', 'okr', 'linkedin', 'thread', 'refactor', 'module', 'error', 'trace', 'onboarding', 'newcomer']
  let state = seed
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648
  return (length: number) => Array.from({ length }, () => vocabulary[Math.floor(random() * vocabulary.length)]!).join(' ')
}

export default async function (): Promise<BenchFigure[]> {
  const text = generator(21)
  const skills: RoutableSkill[] = Array.from({ length: SKILLS }, (_, i) => ({ id: i + 1, name: `skill-${i}-${text(2).replace(/[^a-z]+/g, '-')}`.replace(/-+$/, ''), description: `${text(12)}.` }))
  const buildStart = process.hrtime.bigint()
  const index = buildSkillIndex(skills)
  const buildMs = Number(process.hrtime.bigint() - buildStart) / 1e6
  const requests = Array.from({ length: REQUESTS }, () => `Please ${text(6)} for me`)
  let i = 0
  const durations = await sample(() => routeSkills(index, { request: requests[i++ % REQUESTS]! }), REQUESTS)
  const p95 = percentile(durations, 95) / 1000
  return [{
    name: 'skills.route_ms_1k',
    value: Number(p95.toFixed(3)),
    unit: 'ms',
    lowerIsBetter: true,
    context: { skills: SKILLS, requests: REQUESTS, percentile: 95, goalMs: 30, arms: 'lexical BM25 over stems + offline vectors (256 dims), RRF k = 60, top 8', model: 'none (offline: deterministic branches)', indexBuildMs: Number(buildMs.toFixed(1)), p50Ms: Number((percentile(durations, 50) / 1000).toFixed(3)) },
  }]
}
