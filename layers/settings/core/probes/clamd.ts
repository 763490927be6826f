// The antivirus test: clamd's PING, which it answers PONG, over its TCP socket.
import { connect } from 'node:net'
import { networkFailure, withDeadline } from './words'

export async function probeClamd(clamd: { host: string, port: number }, deadlineMs: number): Promise<string> {
  const where = `${clamd.host}:${clamd.port}`
  let destroy = () => {}
  const reply = new Promise<string>((resolve, reject) => {
    let text = ''
    const socket = connect({ host: clamd.host, port: clamd.port }, () => socket.write('zPING\0'))
    destroy = () => socket.destroy()
    socket.on('data', (chunk) => {
      text += chunk.toString('utf8')
      // clamd ends its answer with NUL; anything that cannot become "PONG" is another server.
      if (/[\0\n]/.test(text) || !'PONG'.startsWith(text.slice(0, 4))) {
        socket.end()
        resolve(text.replace(/\0/g, '').trim())
      }
    })
    socket.on('end', () => resolve(text.replace(/\0/g, '').trim()))
    socket.on('error', reject)
  })
  let answer: string
  try {
    answer = await withDeadline(deadlineMs, reply, destroy)
  }
  catch (error) {
    throw new Error(networkFailure(error, clamd.host, clamd.port) ?? `clamd at ${where} failed: ${(error as Error).message}`, { cause: error })
  }
  finally {
    destroy()
  }
  if (answer !== 'PONG') throw new Error(`${where} answered "${answer.slice(0, 100)}" to PING, not PONG: is it clamd?`)
  return `clamd at ${where} answered PONG`
}
