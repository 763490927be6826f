import { createServer } from 'node:net'

/** Resolves when `port` can be listened on; rejects with the system's code otherwise. */
export function checkPortFree(port: number, host = '0.0.0.0'): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(port, host, () => server.close(() => resolve()))
  })
}
