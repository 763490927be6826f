// The soak catches a broken collector: with ATLAS_COLLECT_FAULT=seen_before_insert (honoured
// in a test run only) the collector sets \Seen before it stores a message. A burst of 60 mails
// and the test hook's pause before the 10th insert of each collector run
// (ATLAS_COLLECT_PAUSE_AT=before_insert@10; at 30, a loaded machine delivered 27 mails and no
// run reached the pause), where the soak's watchdog kills it, put a kill
// between the \Seen and the insert for sure; random kills of the native database come on top.
// The correct build loses nothing there (collector-kill.test.ts kills at every such point);
// this one loses the mail in flight, and the soak must say so: the mail invariant broken with
// the lost Message-ID named as \Seen in the mailbox and never stored, and the exit code 1.
import { rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { expect, it } from 'vitest'
import { startTs } from '../helpers/processes'

it('a short soak of a collector that marks \\Seen before the insert fails on the mail it lost', { timeout: 300_000 }, async () => {
  const soak = startTs('scripts/soak.ts', ['--minutes', '0.1', '--seed', '7', '--rate', '600', '--kill-every', '2-3', '--settle', '120', '--database', 'native', '--victims', 'database', '--intent', 'noise', '--json'], {
    env: { NODE_ENV: 'test', ATLAS_COLLECT_FAULT: 'seen_before_insert', ATLAS_COLLECT_PAUSE_AT: 'before_insert@10' },
  })
  soak.child.stdout!.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.startsWith('[soak]')) console.log(line)
  })
  const end = await soak.exited
  const json = end.output.split('\n').find(line => line.startsWith('{"seed"'))
  expect(json, end.output.slice(-4000)).toBeDefined()
  const report = JSON.parse(json!) as {
    logDir: string
    settled: boolean
    kills: Array<{ service: string }>
    invariants: Array<{ name: string, ok: boolean, offenders: string[] }>
    ok: boolean
  }
  expect(report.kills.filter(kill => kill.service === 'collector').length).toBeGreaterThanOrEqual(1)
  expect(report.settled).toBe(true)
  const mail = report.invariants.find(invariant => invariant.name === 'every delivered mail stored exactly once')!
  expect(mail.ok).toBe(false)
  expect(mail.offenders.length).toBeGreaterThanOrEqual(1)
  expect(mail.offenders.every(offender => /^lost <soak-.*> \(\\Seen in the mailbox, never stored\)$/.test(offender)), mail.offenders.join('\n')).toBe(true)
  // Only the mail is wrong: the rest of the system held.
  expect(report.invariants.filter(invariant => !invariant.ok).map(invariant => invariant.name)).toEqual(['every delivered mail stored exactly once'])
  expect(report.ok).toBe(false)
  expect(end.code).toBe(1)
  // The soak keeps a failed run's logs for diagnosis; this failure is the expected one.
  rmSync(dirname(report.logDir), { recursive: true, force: true })
})
