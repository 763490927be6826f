// The public snapshot's sanitising pass: what must go (IPs, absolute paths, e-mails, tenant
// names and slugs) goes, in every string and key; what is public (relative doc paths) stays.
import { expect, it } from 'vitest'
import { createSanitizer, sanitizeDeep } from '../../core/snapshot/sanitize'

const clean = createSanitizer([{ name: 'Acme Bakery', slug: 'acme-bakery' }, { name: 'Zeta', slug: 'zeta' }])

it('removes IPv4 (with a port) and IPv6 addresses', () => {
  expect(clean('db at 10.0.3.17:5432 and 192.168.1.1 down')).toBe('db at [ip] and [ip] down')
  expect(clean('v6 fe80::1ff:fe23:4567:890a and 2001:0db8:85a3:0000:0000:8a2e:0370:7334 and ::1')).toBe('v6 [ip] and [ip] and [ip]')
  expect(clean('version 1.2.3 stays')).toBe('version 1.2.3 stays')
})

it('removes absolute paths but keeps relative documentation paths', () => {
  expect(clean('log in /var/log/synedre/night.log, vault /home/ops/vault/')).toBe('log in [path], vault [path]')
  expect(clean('it misses /srv/vault/draft.md.')).toBe('it misses [path].')
  expect(clean('see C:\\Users\\ops\\notes.md now')).toBe('see [path] now')
  expect(clean('docs/memory.md cites layers/memory/core/gone.ts')).toBe('docs/memory.md cites layers/memory/core/gone.ts')
  expect(clean('at https://synedre.com/docs')).toBe('at https://synedre.com/docs')
})

it('removes tenant names and slugs (any case) and e-mail addresses', () => {
  expect(clean('ACME BAKERY site and acme-bakery repo, zeta too; zetacorp stays')).toBe('[tenant] site and [tenant] repo, [tenant] too; zetacorp stays')
  expect(clean('mail ops@acme-bakery.fr')).toBe('mail [email]')
})

it('walks every string and key of a JSON value', () => {
  expect(sanitizeDeep({ 'a': ['10.1.1.1', 3, null, true], '/etc/passwd': { Zeta: 'x' } }, clean)).toEqual({ 'a': ['[ip]', 3, null, true], '[path]': { '[tenant]': 'x' } })
})
