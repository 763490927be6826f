// The personal-data scrubber on a corpus of French and English samples, each with the exact
// expected output, and on near-misses that must come out unchanged.
import { describe, expect, it } from 'vitest'
import { createScrubber } from '../../core/scrub'

const scrub = createScrubber({ names: ['Claire Dubois', 'John Smith', 'Marie-Hélène Lefèvre'] })

// [input, expected output]
const CORPUS: Array<[string, string]> = [
  // E-mail addresses
  ['Écrire à claire.dubois@acme-client.fr pour valider.', 'Écrire à [EMAIL] pour valider.'],
  ['Contact: ops+alerts@studio.example.com', 'Contact: [EMAIL]'],
  ['Le client (jean_paul.martin@orange.fr) a rappelé', 'Le client ([EMAIL]) a rappelé'],
  ['send the invoice to billing@bakery.co.uk today', 'send the invoice to [EMAIL] today'],
  ['Mails: a@b.io, élodie@café.fr', 'Mails: [EMAIL], [EMAIL]'],
  // French phone numbers
  ['Appeler le 06 12 34 56 78 avant midi', 'Appeler le [PHONE] avant midi'],
  ['Tél. 01.45.67.89.10', 'Tél. [PHONE]'],
  ['portable 0612345678', 'portable [PHONE]'],
  ['+33 6 12 34 56 78 (standard)', '[PHONE] (standard)'],
  ['+33612345678', '[PHONE]'],
  ['0033 1 45 67 89 10', '[PHONE]'],
  ['+33 (0)1 45 67 89 10', '[PHONE]'],
  ['fax 04-78-12-34-56', 'fax [PHONE]'],
  // International phone numbers
  ['Call +1 415 555 0142 for support', 'Call [PHONE] for support'],
  ['UK office: +44 20 7946 0958', 'UK office: [PHONE]'],
  ['+49 30 901820', '[PHONE]'],
  ['whatsapp +32 470 12 34 56', 'whatsapp [PHONE]'],
  // IBANs
  ['IBAN FR76 3000 6000 0112 3456 7890 189 pour le virement', 'IBAN [IBAN] pour le virement'],
  ['iban: FR7630006000011234567890189', 'iban: [IBAN]'],
  ['Account GB82 WEST 1234 5698 7654 32', 'Account [IBAN]'],
  ['DE89370400440532013000 (Berlin)', '[IBAN] (Berlin)'],
  // Card numbers
  ['carte 4111 1111 1111 1111 refusée', 'carte [CARD] refusée'],
  ['card 5500-0000-0000-0004 expired', 'card [CARD] expired'],
  ['paid with 378282246310005', 'paid with [CARD]'],
  // IP addresses
  ['le serveur 192.168.1.24 ne répond plus', 'le serveur [IP] ne répond plus'],
  ['blocked 203.0.113.7 at the firewall', 'blocked [IP] at the firewall'],
  ['route 10.0.0.0/8 via the VPN', 'route [IP] via the VPN'],
  ['ipv6 2001:db8:85a3::8a2e:370:7334 down', 'ipv6 [IP] down'],
  ['ssh root@51.15.22.100', 'ssh root@[IP]'],
  // API tokens
  ['key sk-ant-api03-abcdefghijklmnopqrstuvwx leaked in the log', 'key [TOKEN] leaked in the log'],
  ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'token [TOKEN]'],
  ['Authorization: Bearer abcdef0123456789abcdef0123', 'Authorization: Bearer [TOKEN]'],
  ['AWS AKIAIOSFODNN7EXAMPLE in .env', 'AWS [TOKEN] in .env'],
  ['MISTRAL_API_KEY=Zx81kLq0pRt7vWm2', 'MISTRAL_API_KEY=[TOKEN]'],
  ['password: "hunter2hunter2"', 'password: "[TOKEN]"'],
  ['slack xoxb-1234567890-abcdefghij', 'slack [TOKEN]'],
  // Person names from the tenants' contacts
  ['Claire Dubois a validé la maquette', '[PERSON] a validé la maquette'],
  ['Ask Smith before deploying', 'Ask [PERSON] before deploying'],
  ['Marie-Hélène Lefèvre relit le devis', '[PERSON] relit le devis'],
  ['mail de Lefèvre reçu hier', 'mail de [PERSON] reçu hier'],
  // Mixed
  ['John Smith (john@smith.dev, +44 7700 900123) wants a call', '[PERSON] ([EMAIL], [PHONE]) wants a call'],
  ['Virement FR76 3000 6000 0112 3456 7890 189 confirmé par Claire au 06 12 34 56 78', 'Virement [IBAN] confirmé par [PERSON] au [PHONE]'],
]

// Must come out exactly as they went in.
const NEAR_MISSES = [
  'Upgraded nuxt from 4.1.2 to 4.2.0',
  'version 1.2.3.4 of the agent CLI',
  'node v22.19.0.1 breaks the build',
  'commande n° 2024-000123 livrée',
  'order #123456789 shipped',
  'Facture FAC-2025-0612345678 payée',
  'ticket 4111 reopened',
  'le commit a1b2c3d4e5f6 corrige la régression',
  'SIRET 732 829 320 00074',
  'SIRET 73282932000074',
  'uptime 12:30:45 at boot',
  'ports 8080 and 5432 are open',
  'between 09:00 and 18:00',
  'the 2025-06-12 release',
  'ratio 3.14159 of the budget',
  'retry after 1500 ms, 3 attempts',
  'Smithsonian archive and Dubrovnik trip',
  'the claire-voie fence (not a person)',
  'ISO 8601 and RFC 5322',
  'lot 1234 5678 9012 (not Luhn-valid)',
  'FR12 ABCD EFGH IJKL MNOP',
  'function f(a, b) { return a@b }',
]

describe('personal-data scrubber', () => {
  it('has a corpus of at least 40 samples and 10 near-misses', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(40)
    expect(NEAR_MISSES.length).toBeGreaterThanOrEqual(10)
  })

  it.each(CORPUS)('redacts %s', (input, expected) => {
    expect(scrub(input).text).toBe(expected)
  })

  it.each(NEAR_MISSES)('keeps %s', (input) => {
    expect(scrub(input)).toEqual({ text: input, found: {} })
  })

  it('counts what it replaced, by kind', () => {
    expect(scrub('a@b.io c@d.io 06 12 34 56 78').found).toEqual({ email: 2, phone: 1 })
  })

  it('is idempotent: a scrubbed text scrubs to itself', () => {
    for (const [input] of CORPUS) {
      const once = scrub(input).text
      expect(scrub(once).text).toBe(once)
    }
  })
})
