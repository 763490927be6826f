// The one admission rule (core/admission.ts), case by case: who may start an agent
// automatically, and why every other message waits for an operator.
import { describe, expect, it } from 'vitest'
import type { SenderAuth } from '#db/schema/atlas'
import { decideAdmission, senderStanding } from '../../core/admission'
import type { TenantMatch } from '../../core/tenants'

const people = { founderEmails: ['alex@studio.example'], teamEmails: ['alex@studio.example', 'sam@studio.example'] }
const ACME: TenantMatch = { id: 'a', slug: 'acme', name: 'Acme', matchedBy: 'domain' }
const SOLO: TenantMatch = { id: 's', slug: 'solo', name: 'Solo', matchedBy: 'contact' }

function auth(verdict: SenderAuth['verdict'], flags: string[] = []): SenderAuth {
  return { verdict, domain: verdict === 'pass' ? 'x' : null, reasons: [`verdict ${verdict}`], flags, results: { dkim: 'none', spf: 'none', dmarc: 'none', arc: 'none', trusted: [] }, checkedAt: '2026-12-01T00:00:00Z' }
}

const cases: Array<[string, SenderAuth | null, string, TenantMatch | null, string, 'auto' | 'awaiting' | null, RegExp]> = [
  ['authenticated founder', auth('pass'), 'alex@studio.example', null, 'chantier', 'auto', /authenticated team member alex@studio\.example/],
  ['authenticated team member', auth('pass'), 'sam@studio.example', null, 'run', 'auto', /authenticated team member/],
  ['authenticated tenant contact (domain)', auth('pass'), 'claire@acme.example', ACME, 'question', 'auto', /authenticated contact of Acme \(acme, by domain\)/],
  ['authenticated tenant contact (listed address)', auth('pass'), 'solo@gmail.example', SOLO, 'negociation', 'auto', /authenticated contact of Solo/],
  ['authenticated stranger', auth('pass'), 'bob@stranger.example', null, 'chantier', 'awaiting', /neither a team member nor a contact of a known client/],
  ['unauthenticated (none) founder address', auth('none'), 'alex@studio.example', null, 'chantier', 'awaiting', /not authenticated \(verdict is none, although it claims a team address\)/],
  ['forged (fail) tenant address', auth('fail'), 'claire@acme.example', ACME, 'run', 'awaiting', /not authenticated \(verdict is fail, although it claims to be from Acme\)/],
  ['never checked (stored before authentication existed)', null, 'sam@studio.example', null, 'run', 'awaiting', /verdict was never checked/],
  ['authenticated team member, Reply-To elsewhere', auth('pass', ['reply_to_elsewhere']), 'sam@studio.example', null, 'run', 'awaiting', /flagged \(reply_to_elsewhere\)/],
  ['authenticated tenant contact, lookalike domain flag', auth('pass', ['lookalike_domain']), 'claire@acme.example', ACME, 'run', 'awaiting', /flagged \(lookalike_domain\)/],
  ['noise from anyone: nothing to admit', auth('none'), 'bob@stranger.example', null, 'noise', null, /noise never starts an agent/],
  ['conseil from anyone: nothing to admit', auth('pass'), 'claire@acme.example', ACME, 'conseil', null, /conseil never starts an agent/],
]

describe('decideAdmission', () => {
  it.each(cases)('%s', (_name, senderAuth, from, tenant, intent, expected, reason) => {
    const decision = decideAdmission(intent, senderStanding(senderAuth, from, people, tenant))
    expect(decision.admission).toBe(expected)
    expect(decision.reason).toMatch(reason)
  })

  it('gives privileges only to an authenticated From', () => {
    expect(senderStanding(auth('pass'), 'Alex@Studio.example', people, ACME)).toMatchObject({ founder: true, team: true, tenant: ACME })
    expect(senderStanding(auth('none'), 'alex@studio.example', people, ACME)).toMatchObject({ founder: false, team: false, tenant: null, claimedTenant: ACME, claimedTeam: true })
    expect(senderStanding(auth('fail'), 'sam@studio.example', people, null)).toMatchObject({ founder: false, team: false })
  })
})
