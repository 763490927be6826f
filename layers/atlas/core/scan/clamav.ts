// Antivirus before anything opens an attachment: ClamAV through clamd's INSTREAM command
// when CLAMD_HOST is set, the clamscan command otherwise. One verdict per file: clean,
// infected (with the signature), or error (with the reason). Anything but a clean verdict
// blocks the message.
import { spawn } from 'node:child_process'
import { createReadStream } from 'node:fs'
import { connect } from 'node:net'
import type { ScannerConfig } from '../config'
import { clip } from '#layers/spawn/core/text'

export interface ScanVerdict {
  verdict: 'clean' | 'infected' | 'error'
  signature?: string
  reason?: string
  scanner: 'clamd' | 'clamscan'
}

export interface Scanner {
  name: 'clamd' | 'clamscan'
  /** Verdicts by path; every path given gets one. */
  scanFiles: (paths: string[]) => Promise<Map<string, ScanVerdict>>
}

/** A ClamAV "signature" that only says a scan limit was hit: the file was not fully scanned. */
function limitHit(signature: string): boolean {
  return /^Heuristics\.Limits\.Exceeded/i.test(signature)
}

/** Reads clamd's answer ("stream: OK", "stream: <name> FOUND", "<message> ERROR"). */
export function parseClamdReply(reply: string): ScanVerdict {
  const text = reply.replace(/\0/g, '').trim()
  const found = /^(?:stream|[^:]*): (.+) FOUND$/.exec(text)
  if (found) {
    const signature = found[1]!.trim()
    return limitHit(signature)
      ? { verdict: 'error', reason: `clamd could not scan the whole file (${signature})`, scanner: 'clamd' }
      : { verdict: 'infected', signature, scanner: 'clamd' }
  }
  if (/^(?:stream|[^:]*): OK$/.test(text)) return { verdict: 'clean', scanner: 'clamd' }
  return { verdict: 'error', reason: text ? `clamd: ${clip(text, 300)}` : 'clamd closed the connection without a verdict', scanner: 'clamd' }
}

/** Streams one file to clamd (INSTREAM, 64 KB chunks, each with its 4-byte length). */
export function clamdInstream(host: string, port: number, path: string, timeoutMs: number): Promise<ScanVerdict> {
  return new Promise((resolve) => {
    let reply = ''
    let settled = false
    const socket = connect({ host, port })
    const finish = (verdict: ScanVerdict) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(verdict)
    }
    const timer = setTimeout(() => finish({ verdict: 'error', reason: `clamd at ${host}:${port} gave no verdict within ${timeoutMs} ms`, scanner: 'clamd' }), timeoutMs)
    socket.setNoDelay(true)
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8')
      if (reply.includes('\0')) finish(parseClamdReply(reply))
    })
    socket.on('end', () => finish(parseClamdReply(reply)))
    socket.on('close', () => finish(parseClamdReply(reply)))
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // clamd hangs up early on a stream over its StreamMaxLength, having said why first.
      if (reply) finish(parseClamdReply(reply))
      else if (error.code === 'EPIPE' || error.code === 'ECONNRESET') setTimeout(() => finish(parseClamdReply(reply)), 200)
      else finish({ verdict: 'error', reason: `clamd at ${host}:${port} unreachable: ${error.code ?? error.message}`, scanner: 'clamd' })
    })
    socket.once('connect', async () => {
      const write = (data: Buffer) => new Promise<void>((done) => {
        if (socket.destroyed || settled) return done()
        if (socket.write(data)) done()
        else socket.once('drain', () => done())
      })
      try {
        await write(Buffer.from('zINSTREAM\0'))
        for await (const chunk of createReadStream(path, { highWaterMark: 64 * 1024 })) {
          if (settled || socket.destroyed) return
          const size = Buffer.alloc(4)
          size.writeUInt32BE((chunk as Buffer).length)
          await write(size)
          await write(chunk as Buffer)
        }
        await write(Buffer.alloc(4))
      }
      catch (error) {
        finish({ verdict: 'error', reason: `could not stream the file to clamd: ${(error as Error).message}`, scanner: 'clamd' })
      }
    })
  })
}

export function createClamdScanner(config: ScannerConfig & { clamd: { host: string, port: number } }): Scanner {
  return {
    name: 'clamd',
    scanFiles: async (paths) => {
      const verdicts = new Map<string, ScanVerdict>()
      for (const path of paths) verdicts.set(path, await clamdInstream(config.clamd.host, config.clamd.port, path, config.timeoutMs))
      return verdicts
    },
  }
}

function run(
  bin: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null, stdout: string, stderr: string, failure?: string }> {
  return new Promise((resolve) => {
    let stdout = ''
    let stderr = ''
    let failure: string | undefined
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const timer = setTimeout(() => {
      failure = `${bin} gave no verdict within ${timeoutMs} ms`
      child.kill('SIGKILL')
    }, timeoutMs)
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8')
    })
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 20_000) stderr += chunk.toString('utf8')
    })
    child.on('error', (error: NodeJS.ErrnoException) => {
      failure
        = error.code === 'ENOENT'
          ? `${bin} not found (install ClamAV: apt-get install clamav, or set CLAMSCAN_BIN / CLAMD_HOST)`
          : `${bin}: ${error.message}`
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr, failure })
    })
  })
}

/** The first useful line of clamscan's complaints. */
function clamscanReason(stderr: string, code: number | null): string {
  const line = stderr.split('\n').map(l => l.trim()).find(l => /error|can't|cannot|no such/i.test(l)) ?? stderr.trim().split('\n')[0]
  return clip(line ? `clamscan: ${line}` : `clamscan exited with code ${code}`, 300)
}

export function createClamscanScanner(config: ScannerConfig, maxFileBytes: number): Scanner {
  const limit = Math.max(maxFileBytes + 1024 * 1024, 25 * 1024 * 1024)
  return {
    name: 'clamscan',
    scanFiles: async (paths) => {
      const verdicts = new Map<string, ScanVerdict>()
      for (let start = 0; start < paths.length; start += 200) {
        const batch = paths.slice(start, start + 200)
        const args = [
          '--no-summary', '--stdout',
          `--max-filesize=${limit}`, `--max-scansize=${limit * 4}`, '--alert-exceeds-max=yes',
          ...(config.clamavDatabase ? [`--database=${config.clamavDatabase}`] : []),
          '--', ...batch,
        ]
        const result = await run(config.clamscanBin, args, config.timeoutMs)
        const lines = result.stdout.split('\n')
        for (const path of batch) {
          const line = lines.find(l => l.startsWith(`${path}: `))
          const said = line?.slice(path.length + 2).trim()
          let verdict: ScanVerdict
          if (result.failure) verdict = { verdict: 'error', reason: result.failure, scanner: 'clamscan' }
          else if (said === 'OK') verdict = { verdict: 'clean', scanner: 'clamscan' }
          else if (said?.endsWith(' FOUND')) {
            const signature = said.slice(0, -' FOUND'.length).trim()
            verdict = limitHit(signature)
              ? { verdict: 'error', reason: `clamscan could not scan the whole file (${signature})`, scanner: 'clamscan' }
              : { verdict: 'infected', signature, scanner: 'clamscan' }
          }
          else if (said?.endsWith('ERROR')) verdict = { verdict: 'error', reason: clip(`clamscan: ${said}`, 300), scanner: 'clamscan' }
          else verdict = { verdict: 'error', reason: clamscanReason(result.stderr, result.code), scanner: 'clamscan' }
          verdicts.set(path, verdict)
        }
      }
      return verdicts
    },
  }
}

export function createScanner(config: ScannerConfig, maxFileBytes: number): Scanner {
  return config.clamd ? createClamdScanner({ ...config, clamd: config.clamd }) : createClamscanScanner(config, maxFileBytes)
}
