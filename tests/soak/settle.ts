// The end of a soak: no more mail, no more kills, every process still up; the system has
// settled when the mailbox holds nothing unseen and no message waits on the system
// (states.ts) — bounded by --settle. Progress is printed every 15 s, so a slow drain shows.
import type { Db } from '#db/client'
import { readInboxStates } from './invariants'
import type { MailboxState } from './mailbox'
import { describeTally, standingOf, tally } from './states'

export interface SettleDeps {
  db: Db
  maxAttempts: number
  mailbox: () => Promise<MailboxState>
  log: (line: string) => void
}

export interface Settling { settled: boolean, waitedSec: number, last: string }

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

export async function settle(deps: SettleDeps, timeoutMs: number): Promise<Settling> {
  const started = Date.now()
  let last = 'never read'
  let lastPrinted = started
  while (Date.now() - started < timeoutMs) {
    try {
      const [mailbox, inbox] = await Promise.all([deps.mailbox(), readInboxStates(deps.db)])
      const moving = inbox.filter(state => standingOf(state, deps.maxAttempts).standing === 'system').length
      last = `${mailbox.unseen} unseen in the mailbox; ${describeTally(tally(inbox, deps.maxAttempts))}`
      if (mailbox.unseen === 0 && moving === 0) return { settled: true, waitedSec: Math.round((Date.now() - started) / 1000), last }
    }
    catch (error) {
      // A database restarted by the last kill may still be coming back: read again.
      last = `reading the state failed: ${(error as Error).message}`
    }
    if (Date.now() - lastPrinted >= 15_000) {
      lastPrinted = Date.now()
      deps.log(`[soak] settling, t+${Math.round((Date.now() - started) / 1000)}s: ${last}`)
    }
    await sleep(1000)
  }
  return { settled: false, waitedSec: Math.round((Date.now() - started) / 1000), last }
}
