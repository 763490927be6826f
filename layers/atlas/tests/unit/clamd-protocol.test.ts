// The INSTREAM client against a loopback server that speaks clamd's framing: what goes on
// the wire, and every kind of answer (the real clamd is in tests/integration/antivirus).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clamdInstream, parseClamdReply } from '../../core/scan/clamav'
import { freePort } from '../fakes/ports'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'atlas-clamd-proto-'))
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/** Reads the INSTREAM frames a client sends, then answers with `reply(payload)`. */
async function fakeClamd(
  reply: (payload: Buffer, socket: Socket) => void,
): Promise<{ server: Server, port: number, frames: number[], command: () => string }> {
  const frames: number[] = []
  let command = ''
  const server = createServer((socket) => {
    let buffer = Buffer.alloc(0)
    let headerDone = false
    const payload: Buffer[] = []
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk])
      if (!headerDone) {
        const end = buffer.indexOf(0)
        if (end < 0) return
        command = buffer.subarray(0, end).toString()
        buffer = buffer.subarray(end + 1)
        headerDone = true
      }
      while (buffer.length >= 4) {
        const size = buffer.readUInt32BE(0)
        if (size === 0) {
          reply(Buffer.concat(payload), socket)
          return
        }
        if (buffer.length < 4 + size) return
        frames.push(size)
        payload.push(buffer.subarray(4, 4 + size))
        buffer = buffer.subarray(4 + size)
      }
    })
    socket.on('error', () => {})
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as AddressInfo).port, frames, command: () => command }
}

describe('clamd INSTREAM client', () => {
  it('sends zINSTREAM, 64 KB length-prefixed chunks and a zero terminator, and reads OK', async () => {
    const file = join(dir, 'clean.bin')
    writeFileSync(file, Buffer.alloc(150_000, 7))
    let received: Buffer = Buffer.alloc(0)
    const fake = await fakeClamd((payload, socket) => {
      received = payload
      socket.end('stream: OK\0')
    })
    const verdict = await clamdInstream('127.0.0.1', fake.port, file, 5000)
    fake.server.close()
    expect(verdict).toEqual({ verdict: 'clean', scanner: 'clamd' })
    expect(fake.command()).toBe('zINSTREAM')
    expect(fake.frames).toEqual([65_536, 65_536, 18_928])
    expect(received.equals(Buffer.alloc(150_000, 7))).toBe(true)
  })

  it('reports the signature of an infected stream', async () => {
    const file = join(dir, 'bad.bin')
    writeFileSync(file, 'x')
    const fake = await fakeClamd((_payload, socket) => socket.end('stream: Win.Test.EICAR_HDB-1 FOUND\0'))
    expect(await clamdInstream('127.0.0.1', fake.port, file, 5000)).toEqual({ verdict: 'infected', signature: 'Win.Test.EICAR_HDB-1', scanner: 'clamd' })
    fake.server.close()
  })

  it('turns a refusal, a hang-up, a silence and an absent daemon into error verdicts with the reason', async () => {
    const file = join(dir, 'any.bin')
    writeFileSync(file, 'data')
    const limit = await fakeClamd((_payload, socket) => socket.end('INSTREAM size limit exceeded. ERROR\0'))
    expect(await clamdInstream('127.0.0.1', limit.port, file, 5000)).toEqual({ verdict: 'error', reason: 'clamd: INSTREAM size limit exceeded. ERROR', scanner: 'clamd' })
    limit.server.close()
    const hangup = await fakeClamd((_payload, socket) => socket.destroy())
    expect(await clamdInstream('127.0.0.1', hangup.port, file, 5000)).toEqual({ verdict: 'error', reason: 'clamd closed the connection without a verdict', scanner: 'clamd' })
    hangup.server.close()
    const silent = await fakeClamd(() => {})
    expect(await clamdInstream('127.0.0.1', silent.port, file, 300)).toEqual({ verdict: 'error', reason: `clamd at 127.0.0.1:${silent.port} gave no verdict within 300 ms`, scanner: 'clamd' })
    silent.server.close()
    const port = await freePort()
    expect(await clamdInstream('127.0.0.1', port, file, 5000)).toEqual({ verdict: 'error', reason: `clamd at 127.0.0.1:${port} unreachable: ECONNREFUSED`, scanner: 'clamd' })
  })

  it('never calls a scan-limit heuristic clean or infected', () => {
    expect(parseClamdReply('stream: Heuristics.Limits.Exceeded.MaxFileSize FOUND\0')).toEqual({ verdict: 'error', reason: 'clamd could not scan the whole file (Heuristics.Limits.Exceeded.MaxFileSize)', scanner: 'clamd' })
  })
})
