import { describe, expect, it } from 'vitest'
import { readPublicUrl, sessionCookiePolicy } from '../../core/session-cookie'

describe('the session cookie', () => {
  it('follows the request\'s scheme when HUB_PUBLIC_URL is unset: plain http at a LAN address signs in', () => {
    expect(sessionCookiePolicy({ publicUrl: undefined, protocol: 'http', hostname: '192.168.1.20' })).toEqual({ secure: false, refusal: null })
    expect(sessionCookiePolicy({ publicUrl: undefined, protocol: 'https', hostname: 'hub.studio.example' })).toEqual({ secure: true, refusal: null })
  })

  it('follows HUB_PUBLIC_URL when set, refusing plain http from another address with a message naming the right one', () => {
    expect(sessionCookiePolicy({ publicUrl: 'https://hub.studio.example', protocol: 'https', hostname: 'hub.studio.example' })).toEqual({ secure: true, refusal: null })
    const lan = sessionCookiePolicy({ publicUrl: 'https://hub.studio.example', protocol: 'http', hostname: '192.168.1.20' })
    expect(lan.secure).toBe(true)
    expect(lan.refusal).toMatch(/served at https:\/\/hub\.studio\.example: open it there/)
    // A browser keeps a Secure cookie on loopback names even over http.
    for (const hostname of ['localhost', '127.0.0.1', '[::1]']) expect(sessionCookiePolicy({ publicUrl: 'https://hub.studio.example', protocol: 'http', hostname }).refusal).toBeNull()
    expect(sessionCookiePolicy({ publicUrl: 'http://10.0.0.5:3000', protocol: 'http', hostname: '10.0.0.5' })).toEqual({ secure: false, refusal: null })
  })

  it('reads HUB_PUBLIC_URL as an origin, and refuses what is not an http(s) address', () => {
    expect(readPublicUrl(' https://hub.studio.example/hub ')).toBe('https://hub.studio.example')
    expect(readPublicUrl('')).toBeUndefined()
    expect(() => readPublicUrl('hub.studio.example')).toThrow(/HUB_PUBLIC_URL must be the hub's address/)
    expect(() => readPublicUrl('ftp://hub.studio.example')).toThrow(/must start with https:\/\/ or http:\/\//)
  })
})
