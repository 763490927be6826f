// Command-line flags of the memory CLIs (recall, recall-eval, user-model), parsed and checked
// here so that every bad flag is one clear ArgsError (the CLIs exit 2 with its usage line).
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { RECALL_MODES, MAX_K, DEFAULT_K, type RecallMode } from '../recall/types'
import { parseScope, ScopeError } from '../sources'
import { DEFAULT_TOLERANCE } from '../eval/baseline'
import { isUserSlice, USER_SLICES, type UserSlice } from '../user-model/slices'

export class ArgsError extends Error {
  constructor(message: string, readonly usage: string) {
    super(message)
    this.name = 'ArgsError'
  }
}

function parse(argv: string[], options: NonNullable<ParseArgsConfig['options']>, usage: string, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true })
  }
  catch (error) {
    throw new ArgsError((error as Error).message.split('\n')[0]!, usage)
  }
}

function integer(name: string, raw: string | undefined, min: number, max: number, fallback: number, usage: string): number {
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(value) || value < min || value > max) throw new ArgsError(`--${name} must be an integer from ${min} to ${max} (got "${raw}")`, usage)
  return value
}

export const RECALL_USAGE = 'recall "query" [--k N] [--mode lex|sem|hybrid] [--scope all|TYPE[,TYPE…]] [--agent CODENAME] [--tenant SLUG] [--drop-below-floor] [--json]'

export interface RecallArgs {
  query: string
  k: number
  mode: RecallMode
  scope: string
  agent: string | null
  tenant: string | null
  /** Drop the hits below the relevance floor instead of flagging them. */
  dropBelowFloor: boolean
  json: boolean
}

export function parseRecallArgs(argv: string[]): RecallArgs {
  const { values, positionals } = parse(argv, {
    'k': { type: 'string' },
    'mode': { type: 'string' },
    'scope': { type: 'string' },
    'agent': { type: 'string' },
    'tenant': { type: 'string' },
    'drop-below-floor': { type: 'boolean' },
    'json': { type: 'boolean' },
  }, RECALL_USAGE, true)
  const query = positionals.join(' ').trim()
  if (!query) throw new ArgsError('the query is missing', RECALL_USAGE)
  const mode = (values.mode as string | undefined) ?? 'hybrid'
  if (!(RECALL_MODES as readonly string[]).includes(mode)) throw new ArgsError(`--mode must be lex, sem or hybrid (got "${mode}")`, RECALL_USAGE)
  const scope = (values.scope as string | undefined) ?? 'all'
  try {
    parseScope(scope)
  }
  catch (error) {
    if (error instanceof ScopeError) throw new ArgsError(`--scope: ${error.message}`, RECALL_USAGE)
    throw error
  }
  return {
    query,
    k: integer('k', values.k as string | undefined, 1, MAX_K, DEFAULT_K, RECALL_USAGE),
    mode: mode as RecallMode,
    scope,
    agent: (values.agent as string | undefined)?.trim() || null,
    tenant: (values.tenant as string | undefined)?.trim() || null,
    dropBelowFloor: Boolean(values['drop-below-floor']),
    json: Boolean(values.json),
  }
}

export const EVAL_USAGE = 'recall-eval [--baseline | --mode-sweep | --calibrate-floor] [--tol 0.05] [--json] [--golden FILE] [--baseline-file FILE] [--sweep-file FILE]'

export interface EvalArgs {
  action: 'gate' | 'freeze' | 'sweep' | 'calibrate'
  tolerance: number
  json: boolean
  golden: string | null
  baselineFile: string | null
  /** Where --mode-sweep keeps its JSON (default DATA_DIR/recall-eval/mode-sweep.json). */
  sweepFile: string | null
}

export function parseEvalArgs(argv: string[]): EvalArgs {
  const { values } = parse(argv, {
    'baseline': { type: 'boolean' },
    'mode-sweep': { type: 'boolean' },
    'calibrate-floor': { type: 'boolean' },
    'tol': { type: 'string' },
    'json': { type: 'boolean' },
    'golden': { type: 'string' },
    'baseline-file': { type: 'string' },
    'sweep-file': { type: 'string' },
  }, EVAL_USAGE)
  if ([values.baseline, values['mode-sweep'], values['calibrate-floor']].filter(Boolean).length > 1) throw new ArgsError('--baseline, --mode-sweep and --calibrate-floor cannot be combined', EVAL_USAGE)
  let tolerance = DEFAULT_TOLERANCE
  if (values.tol !== undefined) {
    const raw = values.tol as string
    tolerance = Number(raw)
    if (raw.trim() === '' || !Number.isFinite(tolerance) || tolerance < 0 || tolerance > 1) throw new ArgsError(`--tol must be a number from 0 to 1 (got "${raw}")`, EVAL_USAGE)
  }
  return {
    action: values.baseline ? 'freeze' : values['mode-sweep'] ? 'sweep' : values['calibrate-floor'] ? 'calibrate' : 'gate',
    tolerance,
    json: Boolean(values.json),
    golden: (values.golden as string | undefined) ?? null,
    baselineFile: (values['baseline-file'] as string | undefined) ?? null,
    sweepFile: (values['sweep-file'] as string | undefined) ?? null,
  }
}

export const USER_MODEL_USAGE = `user-model [--slice ${USER_SLICES.join('|')}] [--user SUBJECT] [--json | --format-briefing] [--private]`

export interface UserModelArgs {
  slice: UserSlice
  subject: string | null
  output: 'pretty' | 'json' | 'briefing'
  allowPrivate: boolean
}

export function parseUserModelArgs(argv: string[]): UserModelArgs {
  const { values } = parse(argv, {
    'slice': { type: 'string' },
    'user': { type: 'string' },
    'json': { type: 'boolean' },
    'format-briefing': { type: 'boolean' },
    'private': { type: 'boolean' },
  }, USER_MODEL_USAGE)
  const slice = (values.slice as string | undefined) ?? 'core'
  if (!isUserSlice(slice)) throw new ArgsError(`--slice must be one of ${USER_SLICES.join(', ')} (got "${slice}")`, USER_MODEL_USAGE)
  if (values.json && values['format-briefing']) throw new ArgsError('--json and --format-briefing cannot be combined', USER_MODEL_USAGE)
  if (slice === 'private' && !values.private) throw new ArgsError('the private dimension is reserved for the primary operator: add --private to read it', USER_MODEL_USAGE)
  return {
    slice,
    subject: (values.user as string | undefined)?.trim() || null,
    output: values.json ? 'json' : values['format-briefing'] ? 'briefing' : 'pretty',
    allowPrivate: Boolean(values.private),
  }
}
