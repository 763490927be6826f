// The forge side of webhooks, pure (issue 34, Deliver 6): which signature headers count and
// how they compare, the delivery id and event read from either forge's headers, the summary
// parsed from the payload's shape (a payload of the wrong shape, or another event, has none),
// and the trigger's event and branch choice. The whole path on real payloads is
// layers/hub/tests/integration/webhooks.test.ts.
import { describe, expect, it } from 'vitest'
import { claimedSignatures, deliveryId, forgeEvent, hookWants, signatureValid, signBody, summarise } from '../../core/custom/forge'
import { openSecret, sealSecret, webhookSealKey } from '../../core/custom/webhook-secrets'

const body = Buffer.from('{"ref":"refs/heads/main","repository":{"full_name":"studio/site"},"pusher":{"name":"alex"}}')
const secret = 'b'.repeat(64)

describe('forge webhooks', () => {
  it('accepts the GitHub, Gitea and Forgejo signatures over the raw bytes, in either hex case, and nothing else', () => {
    const hex = signBody(secret, body)
    expect(signatureValid(secret, body, { 'x-hub-signature-256': `sha256=${hex}` })).toBe(true)
    expect(signatureValid(secret, body, { 'x-hub-signature-256': `sha256=${hex.toUpperCase()}` })).toBe(true)
    expect(signatureValid(secret, body, { 'x-gitea-signature': hex })).toBe(true)
    expect(signatureValid(secret, body, { 'x-forgejo-signature': hex })).toBe(true)
    // A wrong claim next to a right one: one valid signature suffices (a forge may send both headers).
    expect(signatureValid(secret, body, { 'x-hub-signature-256': 'sha256=00', 'x-gitea-signature': hex })).toBe(true)
    expect(signatureValid(secret, body, { 'x-hub-signature-256': hex })).toBe(false)
    expect(signatureValid(secret, body, { 'x-hub-signature': `sha1=${hex}` })).toBe(false)
    expect(signatureValid(secret, body, { 'x-gitea-signature': `${hex}00` })).toBe(false)
    expect(signatureValid('another', body, { 'x-gitea-signature': hex })).toBe(false)
    expect(signatureValid(secret, Buffer.concat([body, Buffer.from('\n')]), { 'x-gitea-signature': hex })).toBe(false)
    expect(claimedSignatures({ 'x-hub-signature-256': ['sha256=aa', 'sha256=bb'] })).toEqual(['aa'])
  })

  it('reads the delivery id and event of either forge, refusing odd values', () => {
    expect(deliveryId({ 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' })).toBe('72d3162e-cc78-11e3-81ab-4c9367dc0958')
    expect(deliveryId({ 'x-gitea-delivery': 'f6266f16' })).toBe('f6266f16')
    expect(deliveryId({ 'x-github-delivery': 'a b' })).toBeNull()
    expect(deliveryId({})).toBeNull()
    expect(forgeEvent({ 'x-gitea-event': 'pull_request' })).toBe('pull_request')
    expect(forgeEvent({ 'x-github-event': 'Push!' })).toBeNull()
  })

  it('summarises a push and a pull request, and nothing else', () => {
    expect(summarise('push', JSON.parse(body.toString()))).toEqual({ event: 'push', repository: 'studio/site', branch: 'main', ref: 'refs/heads/main', detail: 'pushed by alex', title: null })
    expect(summarise('push', { ref: 'refs/tags/v1', repository: { full_name: 'studio/site' } })).toMatchObject({ branch: null, detail: 'pushed by someone' })
    expect(summarise('push', { ref: 5 })).toBeNull()
    expect(summarise('ping', { zen: 'x' })).toBeNull()
    const pull = summarise('pull_request', { action: 'opened', repository: { full_name: 'studio/site' }, pull_request: { number: 7, title: 'Fix', base: { ref: 'main' }, head: { ref: 'fix' } } })
    expect(pull).toEqual({ event: 'pull_request', repository: 'studio/site', branch: 'main', ref: 'fix → main', detail: '#7 opened', title: 'Fix' })
    expect(hookWants({ events: ['pull_request'], branch: 'main' }, pull!)).toBe(true)
    expect(hookWants({ events: ['push'], branch: null }, pull!)).toBe(false)
    expect(hookWants({ events: ['pull_request'], branch: 'develop' }, pull!)).toBe(false)
  })

  it('seals a secret so that only the same hub key opens it', () => {
    const key = webhookSealKey('k'.repeat(32))
    const sealed = sealSecret(key, secret)
    expect(sealed).not.toContain(secret)
    expect(sealSecret(key, secret)).not.toBe(sealed)
    expect(openSecret(key, sealed)).toBe(secret)
    expect(openSecret(webhookSealKey('j'.repeat(32)), sealed)).toBeNull()
    // One character of the ciphertext changed (its first: all six bits are data): the tag refuses it.
    const [version, iv, tag, data] = sealed.split(':')
    expect(openSecret(key, [version, iv, tag, `${data!.startsWith('A') ? 'B' : 'A'}${data!.slice(1)}`].join(':'))).toBeNull()
    expect(() => webhookSealKey('short')).toThrow('32 characters')
  })
})
