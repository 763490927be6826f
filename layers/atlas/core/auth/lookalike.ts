// A From domain that imitates one the studio knows (a tenant's, the team's): Cyrillic or
// Greek letters, digits for letters, an IDN (xn--) spelling. Such a mail may well be
// authenticated — for its own domain — and is flagged so that nobody takes it for the real one.
import { domainToUnicode } from 'node:url'
import { latinSkeleton } from '#layers/spawn/core/untrusted'

export function lookalikeOf(domain: string, known: string[]): string | null {
  const candidate = domain.toLowerCase()
  if (!candidate || known.some(k => k.toLowerCase() === candidate)) return null
  const skeleton = latinSkeleton(domainToUnicode(candidate) || candidate)
  return known.find(k => latinSkeleton(domainToUnicode(k.toLowerCase()) || k) === skeleton) ?? null
}
