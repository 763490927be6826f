import { describe, expect, it } from 'vitest'
import { createStreamCap, streamsPerSession } from '../../core/stream-cap'

describe('the live streams per session', () => {
  it('gives at most max slots per key, other keys unaffected, and a slot back once on release', () => {
    const cap = createStreamCap(2)
    const first = cap.acquire('a')!
    cap.acquire('a')
    expect(cap.acquire('a')).toBeNull()
    expect(cap.acquire('b')).not.toBeNull()
    first.release()
    first.release()
    expect(cap.count('a')).toBe(1)
    expect(cap.acquire('a')).not.toBeNull()
    expect(cap.acquire('a')).toBeNull()
  })

  it('reads HUB_MAX_STREAMS_PER_SESSION, 10 unless a whole number ≥ 1', () => {
    expect(streamsPerSession(undefined)).toBe(10)
    expect(streamsPerSession('3')).toBe(3)
    expect(streamsPerSession('0')).toBe(10)
    expect(streamsPerSession('2.5')).toBe(10)
  })
})
