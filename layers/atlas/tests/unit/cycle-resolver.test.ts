// The collect cycle's DNS (core/auth/cycle-resolver.ts): a name asked once per cycle, a lookup
// bounded by the timeout, a silent resolver noticed once and not asked again that cycle.
import { describe, expect, it } from 'vitest'
import type { DNSResolver } from 'mailauth'
import { cycleResolver } from '../../core/auth/cycle-resolver'
import { authenticateSender } from '../../core/auth/verify'
import { compose } from '../fixtures/mail'

function notFound(name: string): NodeJS.ErrnoException {
  const error = new Error(`queryTxt ENOTFOUND ${name}`) as NodeJS.ErrnoException
  error.code = 'ENOTFOUND'
  return error
}

describe('the cycle resolver', () => {
  it('asks each name once per cycle, answers and "no such record" alike, whatever the case of the name', async () => {
    const asked: string[] = []
    const base: DNSResolver = async (name, rrtype) => {
      asked.push(`${rrtype} ${name}`)
      if (name === 'client.example') return [['v=spf1 -all']]
      throw notFound(name)
    }
    const cycle = cycleResolver({ timeoutMs: 1000, log: () => {}, base })
    expect(await cycle('client.example', 'TXT')).toEqual([['v=spf1 -all']])
    expect(await cycle('Client.Example', 'TXT')).toEqual([['v=spf1 -all']])
    await expect(cycle('_dmarc.client.example', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' })
    await expect(cycle('_dmarc.client.example', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' })
    expect(asked).toEqual(['TXT client.example', 'TXT _dmarc.client.example'])
    // A new cycle asks again.
    await cycleResolver({ timeoutMs: 1000, log: () => {}, base })('client.example', 'TXT')
    expect(asked).toHaveLength(3)
  })

  it('gives up on a resolver that never answers after the timeout, says so once, and asks it nothing more that cycle', async () => {
    let calls = 0
    const silent: DNSResolver = () => {
      calls += 1
      return new Promise(() => {})
    }
    const lines: string[] = []
    const cycle = cycleResolver({ timeoutMs: 50, log: line => lines.push(line), base: silent })
    await expect(cycle('_dmarc.a.example', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' })
    await expect(cycle('_dmarc.b.example', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' })
    await expect(cycle('c.example', 'MX')).rejects.toMatchObject({ code: 'ETIMEOUT' })
    expect(calls).toBe(1)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/DNS resolver answers nothing \(ETIMEOUT.*rest of this cycle/)
  })

  it('serves a batch of mail from one domain with one set of lookups, the verdicts unchanged', async () => {
    const asked: string[] = []
    const base: DNSResolver = async (name, rrtype) => {
      asked.push(`${rrtype} ${name}`)
      throw notFound(name)
    }
    const cycle = cycleResolver({ timeoutMs: 1000, log: () => {}, base })
    const verdicts: string[] = []
    for (let i = 0; i < 5; i++) {
      const raw = await compose({ subject: `Demande ${i}`, text: `Bonjour ${i}` })
      const auth = await authenticateSender(raw, { resolver: cycle, from: { address: 'claire@prospect.example', name: 'Claire Martin' }, trustedAuthservIds: [], timeoutMs: 1000 })
      verdicts.push(auth.verdict)
    }
    expect(verdicts).toEqual(['none', 'none', 'none', 'none', 'none'])
    expect(asked.length).toBeGreaterThan(0)
    expect(new Set(asked).size).toBe(asked.length)
  })
})
