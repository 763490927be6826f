// DMARC's relaxed alignment, shared by the sender's own checks (verify.ts) and ARC's (arc.ts).

/** Relaxed alignment (RFC 7489 §3.1): the same domain, or one is a subdomain of the other. */
export function aligned(a: string | null | undefined, b: string | null | undefined): boolean {
  const x = (a ?? '').toLowerCase().replace(/\.$/, '')
  const y = (b ?? '').toLowerCase().replace(/\.$/, '')
  if (!x || !y) return false
  return x === y || x.endsWith(`.${y}`) || y.endsWith(`.${x}`)
}
