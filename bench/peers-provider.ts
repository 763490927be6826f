// The peers bench's provider, in its own process: a loopback server speaking the Mistral /
// OpenAI chat format and answering at once. Prints its URL on stdout, exits when stdin closes.
import { startFakeServer } from '#layers/ai/tests/fakes/server'
import { openAiStyle } from '#layers/ai/tests/fakes/providers'

const server = await startFakeServer(openAiStyle({ key: process.env.PEERS_KEY, flavour: 'mistral', reply: () => 'ok' }))
// The fake records every request: cleared each second, so a long run does not grow.
setInterval(() => {
  server.requests.length = 0
}, 1000).unref()
process.stdout.write(`${server.url}\n`)
process.stdin.resume()
process.stdin.on('end', () => {
  void server.close().then(() => process.exit(0))
})
