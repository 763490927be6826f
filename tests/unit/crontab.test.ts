import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CrontabError, parseCrontab, renderSystemCrontab } from '#layers/health/core/crontab'
import { automateNames } from '#automates/registry'

const known = ['lock-guardian', 'atlas-collect']

describe('crontab parser', () => {
  it('reads the project crontab: every line names a known automate', () => {
    const entries = parseCrontab(readFileSync('automates/crontab', 'utf8'), 'automates/crontab', automateNames)
    expect(entries.map(e => e.automation)).toContain('lock-guardian')
    expect(entries.find(e => e.automation === 'lock-guardian')?.schedule).toBe('*/15 * * * *')
    // The seeds' schedules: the spawn orchestrator every 5 minutes at offset 2, its worker every minute.
    expect(entries.find(e => e.automation === 'atlas-spawn')?.schedule).toBe('2-59/5 * * * *')
    expect(entries.find(e => e.automation === 'atlas-spawn-worker')?.schedule).toBe('* * * * *')
    // The nights (issue 20): the maintenance loop at 05:00 runs the health report and the
    // snapshot as its steps 8–9 (no lines of their own), memory metrics at 06:00, memory
    // hygiene the 1st of the month at 00:00.
    expect(entries.find(e => e.automation === 'maintenance-loop')?.schedule).toBe('0 5 * * *')
    expect(entries.filter(e => e.automation === 'health-report' || e.automation === 'health-snapshot')).toEqual([])
    expect(entries.find(e => e.automation === 'memory-metrics')?.schedule).toBe('0 6 * * *')
    expect(entries.find(e => e.automation === 'memory-hygiene')?.schedule).toBe('0 0 1 * *')
    expect(entries.find(e => e.automation === 'nightly-consolidation')).toMatchObject({ schedule: '0 4 * * *', args: ['--live'] })
  })

  it('skips comments, blank lines and environment lines, and keeps flags', () => {
    const text = '# comment\n\nSHELL=/bin/sh\nMAILTO=""\n2-59/5 * * * * $SYNEDRE_HOME/scripts/automate atlas-collect --json --limit 3\n'
    expect(parseCrontab(text, 'f', known)).toEqual([
      { line: 5, schedule: '2-59/5 * * * *', automation: 'atlas-collect', args: ['--json', '--limit', '3'] },
    ])
  })

  it.each([
    ['*/15 * * * x $SYNEDRE_HOME/scripts/automate lock-guardian', /schedule "\*\/15 \* \* \* x" does not parse/],
    ['61 * * * * $SYNEDRE_HOME/scripts/automate lock-guardian', /does not parse/],
    ['* * * * *', /expected five schedule fields and a command/],
    ['* * * * * /usr/bin/backup.sh', /does not call scripts\/automate/],
    ['* * * * * $SYNEDRE_HOME/scripts/automate ghost', /unknown automate "ghost"/],
    ['* * * * * $SYNEDRE_HOME/scripts/automate lock-guardian; rm -rf /', /shell quoting or operators/],
  ])('refuses "%s" with the line number and a fix', (line, problem) => {
    const text = `# header\n${line}\n`
    let caught: unknown
    try {
      parseCrontab(text, 'automates/crontab', known)
    }
    catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(CrontabError)
    const error = caught as CrontabError
    expect(error.line).toBe(2)
    expect(error.message).toMatch(/^automates\/crontab:2: /)
    expect(error.message).toMatch(problem)
    expect(error.fix.length).toBeGreaterThan(10)
  })

  it('renders the system crontab with the checkout location', () => {
    expect(renderSystemCrontab('* * * * * $SYNEDRE_HOME/scripts/automate lock-guardian\n', '/opt/synedre')).toBe(
      'SYNEDRE_HOME=/opt/synedre\n* * * * * $SYNEDRE_HOME/scripts/automate lock-guardian\n',
    )
    expect(renderSystemCrontab('x\n', '/opt/synedre', '/etc/synedre/synedre.env')).toBe('SYNEDRE_HOME=/opt/synedre\nSYNEDRE_ENV_FILE=/etc/synedre/synedre.env\nx\n')
  })
})
