// pg-boss on both databases, the embedded PGlite included (over its socket, where session
// advisory locks are not exclusive): several instances starting at once, one job per message
// (singletonKey, exclusive policy), each job fetched by exactly one consumer, failed jobs free
// the key again.
import { expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { openSpawnQueue } from '#layers/spawn/core/queue'

describeOnBothDatabases('The spawn queue (pg-boss)', (database) => {
  it('starts three instances at once, deduplicates per message, hands each job to one consumer', async () => {
    const queues = await Promise.all([0, 1, 2].map(() => openSpawnQueue({ connectionString: database().url })))
    try {
      const options = { expireInSeconds: 60, heartbeatSeconds: 10 }
      const sent = await Promise.all([1, 2, 3, 1, 2, 3].map((messageId, i) => queues[i % 3]!.send({ spawnId: `s${messageId}-${i}`, messageId: 9000 + messageId, iteration: 1 }, options)))
      expect(sent.filter(Boolean)).toHaveLength(3)
      const fetched = (await Promise.all([...queues, ...queues].map(queue => queue.fetch()))).filter(job => job !== null)
      expect(fetched.map(job => job!.data.messageId).sort()).toEqual([9001, 9002, 9003])
      const first = fetched[0]!
      // While active, the message's key refuses a second job; once failed, it takes one again.
      expect(await queues[0]!.send({ spawnId: 'again', messageId: first.data.messageId, iteration: 1 }, options)).toBeNull()
      expect(await queues[1]!.state(first.id)).toBe('active')
      await queues[1]!.fail(first.id, { reason: 'worker_lost' })
      expect(await queues[2]!.state(first.id)).toBe('failed')
      expect(await queues[0]!.send({ spawnId: 'again', messageId: first.data.messageId, iteration: 1 }, options)).toBeTruthy()
      for (const job of fetched.slice(1)) await queues[0]!.complete(job!)
      expect(await queues[0]!.state(fetched[1]!.id)).toBe('completed')
    }
    finally {
      await Promise.all(queues.map(queue => queue.stop()))
    }
  })
})
