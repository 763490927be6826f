import { describe, expect, it } from 'vitest'
import { ArgsError, parseEvalArgs, parseRecallArgs, parseUserModelArgs } from '../../core/cli/args'

describe('recall flags', () => {
  it('reads the query (all positionals) and the options, with the defaults', () => {
    expect(parseRecallArgs(['smoke', 'test'])).toEqual({ query: 'smoke test', k: 5, mode: 'hybrid', scope: 'all', agent: null, tenant: null, dropBelowFloor: false, json: false })
    expect(parseRecallArgs(['q', '--k', '12', '--mode', 'lex', '--scope', 'scars,doctrine', '--agent', ' backend ', '--tenant', 'acme', '--drop-below-floor', '--json'])).toEqual({ query: 'q', k: 12, mode: 'lex', scope: 'scars,doctrine', agent: 'backend', tenant: 'acme', dropBelowFloor: true, json: true })
    expect(parseRecallArgs(['--k=3', 'q'])).toMatchObject({ k: 3 })
  })

  it.each([
    [[], 'the query is missing'],
    [['  '], 'the query is missing'],
    [['q', '--k', '0'], '--k must be an integer from 1 to 100 (got "0")'],
    [['q', '--k', '1.5'], '--k must be an integer'],
    [['q', '--k', '101'], '--k must be an integer'],
    [['q', '--mode', 'fuzzy'], '--mode must be lex, sem or hybrid (got "fuzzy")'],
    [['q', '--scope', 'gossip'], '--scope: unknown scope "gossip"'],
    [['q', '--json=yes'], /--json/],
    [['q', '--verbose'], 'Unknown option \'--verbose\''],
    [['q', '--k'], /--k/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseRecallArgs(argv as string[])).toThrow(ArgsError)
    expect(() => parseRecallArgs(argv as string[])).toThrow(message)
  })
})

describe('evaluation harness flags', () => {
  it('gate by default; --baseline freezes; --mode-sweep compares; --tol, --golden, --baseline-file', () => {
    expect(parseEvalArgs([])).toEqual({ action: 'gate', tolerance: 0.05, json: false, golden: null, baselineFile: null, sweepFile: null })
    expect(parseEvalArgs(['--baseline', '--json', '--golden', 'g.json', '--baseline-file', 'b.json'])).toEqual({ action: 'freeze', tolerance: 0.05, json: true, golden: 'g.json', baselineFile: 'b.json', sweepFile: null })
    expect(parseEvalArgs(['--mode-sweep', '--sweep-file', 's.json']).sweepFile).toBe('s.json')
    expect(parseEvalArgs(['--mode-sweep', '--tol', '0'])).toMatchObject({ action: 'sweep', tolerance: 0 })
  })

  it.each([
    [['--tol', 'x'], '--tol must be a number from 0 to 1 (got "x")'],
    [['--tol', ''], '--tol must be a number'],
    [['--tol=-0.1'], '--tol must be a number'],
    [['--baseline', '--mode-sweep'], 'cannot be combined'],
    [['extra'], /Unexpected argument 'extra'/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseEvalArgs(argv as string[])).toThrow(message)
  })
})

describe('user model flags', () => {
  it('core slice, pretty output by default', () => {
    expect(parseUserModelArgs([])).toEqual({ slice: 'core', subject: null, output: 'pretty', allowPrivate: false })
    expect(parseUserModelArgs(['--slice', 'skills', '--user', 'me', '--format-briefing'])).toEqual({ slice: 'skills', subject: 'me', output: 'briefing', allowPrivate: false })
    expect(parseUserModelArgs(['--slice', 'private', '--private', '--json'])).toMatchObject({ slice: 'private', output: 'json', allowPrivate: true })
  })

  it.each([
    [['--slice', 'mood'], '--slice must be one of core, communication_style, schedules, profile, skills, history, preferences, private (got "mood")'],
    [['--slice', 'private'], 'add --private to read it'],
    [['--json', '--format-briefing'], 'cannot be combined'],
  ])('refuses %j', (argv, message) => {
    expect(() => parseUserModelArgs(argv as string[])).toThrow(message)
  })
})
