// One collect cycle's DNS for sender authentication. Without it every mail asked the same few
// names again (its From domain's DMARC, SPF and DKIM records): 28 ms a mail on a machine whose
// resolver answers nothing useful, most of the first cycle's "IMAP" time for 1,000 mails.
//   - each (name, type) is asked once per cycle, its answer or its error shared by every mail;
//   - each lookup is bounded by the sender-authentication timeout (ATLAS_AUTH_TIMEOUT_MS);
//   - a resolver that answers nothing (time-out, connection refused) is noticed once, logged
//     once, and the rest of the cycle's lookups fail at once with the same error.
import { promises as dns } from 'node:dns'
import { withDeadline } from '#layers/base/core/deadline'
import type { DNSResolver } from './verify'

/** Errors that mean no resolver answered, as opposed to an answer of "no such record". */
const SILENT = new Set(['ETIMEOUT', 'ECONNREFUSED', 'ECANCELLED'])

function lookupError(code: string, message: string): NodeJS.ErrnoException {
  const error = new Error(message) as NodeJS.ErrnoException
  error.code = code
  return error
}

/** A resolver for one cycle: make a new one at the start of each cycle. */
export function cycleResolver(options: { timeoutMs: number, log: (line: string) => void, base?: DNSResolver }): DNSResolver {
  const base: DNSResolver = options.base ?? ((name, rrtype) => dns.resolve(name, rrtype) as Promise<string[][] | string[]>)
  const answers = new Map<string, Promise<string[][] | string[]>>()
  let silent: NodeJS.ErrnoException | null = null

  const ask = async (name: string, rrtype: string): Promise<string[][] | string[]> => {
    try {
      return await withDeadline(base(name, rrtype), options.timeoutMs, () => {
        throw lookupError('ETIMEOUT', `DNS ${rrtype} ${name}: no answer within ${options.timeoutMs} ms (ATLAS_AUTH_TIMEOUT_MS)`)
      })
    }
    catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? ''
      if (SILENT.has(code) && !silent) {
        silent = error as NodeJS.ErrnoException
        options.log(`[atlas-collect] the DNS resolver answers nothing (${code}: ${(error as Error).message}): sender authentication goes on without DNS for the rest of this cycle`)
      }
      throw error
    }
  }

  return (name, rrtype) => {
    if (silent) return Promise.reject(silent)
    const key = `${rrtype} ${name.toLowerCase()}`
    let answer = answers.get(key)
    if (!answer) {
      answer = ask(name, rrtype)
      answers.set(key, answer)
    }
    return answer
  }
}
