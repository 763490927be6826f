// The gate a spawn's stdio MCP server runs behind (layers/spawn/core/mcp.ts), inside the
// spawn's sandbox, between the coding agent's CLI and the server:
//   node spawn-mcp-gate.mjs --allow='["echo","get-sum"]' -- <command> [args...]
// It relays the newline-delimited JSON-RPC both ways, and keeps to the allowed tools: a
// `tools/list` answer lists only them (a tool the registry has not classified is absent), a
// `tools/call` of any other is answered with an error and never reaches the server.
// Plain JavaScript on purpose: it runs with the sandbox's Node, without tsx.
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'

function usage(message) {
  process.stderr.write(`spawn-mcp-gate: ${message}\n`)
  process.exit(2)
}

const argv = process.argv.slice(2)
const separator = argv.indexOf('--')
if (separator < 0 || separator === argv.length - 1) usage('expected --allow=<JSON list> -- <command> [args...]')
const allowArg = argv.slice(0, separator).find(arg => arg.startsWith('--allow='))
if (!allowArg) usage('--allow=<JSON list of tool names> is required')
let allowList
try {
  allowList = JSON.parse(allowArg.slice('--allow='.length))
}
catch (error) {
  usage(`--allow is not JSON: ${error.message}`)
}
if (!Array.isArray(allowList) || !allowList.every(name => typeof name === 'string')) usage('--allow must be a JSON list of tool names')
const allowed = new Set(allowList)
const [command, ...args] = argv.slice(separator + 1)

const server = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] })
server.on('error', (error) => {
  process.stderr.write(`spawn-mcp-gate: the server "${command}" could not start: ${error.message}\n`)
  process.exit(127)
})
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
server.stdin.on('error', () => {})

// The ids of the client's pending tools/list requests (their answers are filtered).
const listing = new Set()
const send = message => process.stdout.write(`${JSON.stringify(message)}\n`)

function fromClient(message) {
  if (!message || typeof message !== 'object') return true
  if (message.method === 'tools/list' && message.id !== undefined) listing.add(message.id)
  if (message.method === 'tools/call' && message.id !== undefined) {
    const name = message.params?.name
    if (!allowed.has(name)) {
      send({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: `Tool ${String(name).slice(0, 128)} is not allowed to this spawn (withheld or not classified)` } })
      return false
    }
  }
  return true
}

function fromServer(message) {
  if (message && typeof message === 'object' && message.id !== undefined && listing.has(message.id)) {
    listing.delete(message.id)
    if (Array.isArray(message.result?.tools)) message.result.tools = message.result.tools.filter(tool => allowed.has(tool?.name))
  }
  return message
}

createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  if (!line.trim()) return
  let parsed
  try {
    parsed = JSON.parse(line)
  }
  catch {
    // Not JSON: the server answers it as it would (a parse error).
    server.stdin.write(`${line}\n`)
    return
  }
  const batch = Array.isArray(parsed) ? parsed : [parsed]
  const through = batch.filter(fromClient)
  if (through.length === 0) return
  server.stdin.write(`${JSON.stringify(Array.isArray(parsed) ? through : through[0])}\n`)
}).on('close', () => server.stdin.end())

createInterface({ input: server.stdout, crlfDelay: Infinity }).on('line', (line) => {
  if (!line.trim()) return
  let parsed
  try {
    parsed = JSON.parse(line)
  }
  catch {
    process.stdout.write(`${line}\n`)
    return
  }
  send(Array.isArray(parsed) ? parsed.map(fromServer) : fromServer(parsed))
})

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => server.kill(signal))
