// ClamAV for the tests, offline: a one-line .ndb signature database holding the EICAR test
// signature (generated here: the repository holds no EICAR file), clamscan pointed at it,
// and a real clamd started in the foreground on a loopback port with a temporary config.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deflateRawSync, crc32 } from 'node:zlib'
import { findBinary } from './binaries'
import { startDaemon } from './daemon'
import { freePort } from './ports'

export const TEST_SIGNATURE = 'Synedre.Test.EICAR'

/** The EICAR anti-virus test string, assembled at run time. */
export function eicar(): Buffer {
  const parts = ['X5O!P%@AP[4\\PZX54(P^)7CC)7}', '$EICAR-STANDARD-ANTIVIRUS', '-TEST-FILE!$H+H*']
  return Buffer.from(parts.join(''), 'ascii')
}

/** A folder holding `test.ndb`: the EICAR bytes as a hex body signature. */
export function writeEicarDatabase(): { dir: string, remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'atlas-clamdb-'))
  writeFileSync(join(dir, 'test.ndb'), `${TEST_SIGNATURE}:0:*:${eicar().toString('hex')}\n`)
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** A minimal ZIP archive (deflated entries, central directory), for "zipped EICAR". */
export function zip(entries: Array<{ name: string, data: Buffer }>): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const entry of entries) {
    const name = Buffer.from(entry.name)
    const compressed = deflateRawSync(entry.data)
    const crc = crc32(entry.data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034B50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(0, 6)
    local.writeUInt16LE(8, 8)
    local.writeUInt32LE(0, 10)
    local.writeUInt32LE(crc >>> 0, 14)
    local.writeUInt32LE(compressed.length, 18)
    local.writeUInt32LE(entry.data.length, 22)
    local.writeUInt16LE(name.length, 26)
    local.writeUInt16LE(0, 28)
    locals.push(local, name, compressed)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014B50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(0, 8)
    central.writeUInt16LE(8, 10)
    central.writeUInt32LE(0, 12)
    central.writeUInt32LE(crc >>> 0, 16)
    central.writeUInt32LE(compressed.length, 20)
    central.writeUInt32LE(entry.data.length, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(offset, 42)
    centrals.push(central, name)
    offset += 30 + name.length + compressed.length
  }
  const directory = Buffer.concat(centrals)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054B50, 0)
  end.writeUInt16LE(entries.length, 8)
  end.writeUInt16LE(entries.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directory, end])
}

export function clamscanBinary(): string {
  return findBinary('clamscan', 'clamav')
}

export interface Clamd {
  host: string
  port: number
  log: () => string
  stop: () => Promise<void>
}

/** Sends one command to clamd and returns its answer. */
export function clamdCommand(host: string, port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let reply = ''
    const socket = connect({ host, port }, () => socket.write(`z${command}\0`))
    socket.on('data', (chunk) => {
      reply += chunk.toString()
    })
    socket.on('end', () => resolve(reply.replace(/\0/g, '').trim()))
    socket.on('error', reject)
  })
}

/** clamd in the foreground on loopback, with the given signature folder. */
export async function startClamd(databaseDir: string, options: { streamMaxLength?: string } = {}): Promise<Clamd> {
  const binary = findBinary('clamd', 'clamav-daemon')
  const dir = mkdtempSync(join(tmpdir(), 'atlas-clamd-'))
  const port = await freePort()
  const conf = join(dir, 'clamd.conf')
  writeFileSync(conf, [
    `DatabaseDirectory ${databaseDir}`,
    `TCPSocket ${port}`,
    'TCPAddr 127.0.0.1',
    'Foreground yes',
    `LogFile ${join(dir, 'clamd.log')}`,
    `PidFile ${join(dir, 'clamd.pid')}`,
    `StreamMaxLength ${options.streamMaxLength ?? '60M'}`,
    'MaxFileSize 60M',
    'MaxScanSize 200M',
    'AlertExceedsMax yes',
    'SelfCheck 0',
    '',
  ].join('\n'))
  const daemon = await startDaemon({
    binary, args: ['-c', conf], dir, logFile: join(dir, 'clamd.log'), what: `clamd on 127.0.0.1:${port}`,
    ready: async () => (await clamdCommand('127.0.0.1', port, 'PING')) === 'PONG', readyTimeoutMs: 30_000,
  })
  return {
    host: '127.0.0.1',
    port,
    log: daemon.log,
    stop: daemon.stop,
  }
}
