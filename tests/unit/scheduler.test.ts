import { describe, expect, it } from 'vitest'
import { startScheduler } from '#layers/health/core/scheduler'

describe('in-process scheduler', () => {
  it('launches every entry on runAll and reports exit codes, a launch failure as 1', async () => {
    const launched: string[] = []
    const logs: string[] = []
    const scheduler = startScheduler([
      { line: 1, schedule: '*/15 * * * *', automation: 'a', args: [] },
      { line: 2, schedule: '0 5 * * *', automation: 'b', args: ['--x'] },
    ], {
      launch: async (entry) => {
        launched.push(entry.automation)
        if (entry.automation === 'b') throw new Error('spawn failed')
        return 0
      },
      log: line => logs.push(line),
    }, { paused: true })
    expect(await scheduler.runAll()).toEqual([0, 1])
    expect(launched).toEqual(['a', 'b'])
    expect(logs.join('\n')).toContain('b could not be launched: spawn failed')
    await scheduler.stop()
  })

  it('computes the next run of each entry from its cron schedule', async () => {
    const scheduler = startScheduler([{ line: 1, schedule: '*/15 * * * *', automation: 'a', args: [] }], { launch: async () => 0, log: () => {} })
    const [next] = scheduler.nextRuns()
    expect(next!.automation).toBe('a')
    expect(next!.next!.getUTCMinutes() % 15).toBe(0)
    expect(next!.next!.getTime()).toBeGreaterThan(Date.now())
    await scheduler.stop()
  })
})
