// The hub's MCP client under the conformance suite's client role (issue 35):
//   npx conformance client --command "npx tsx scripts/mcp-conformance-client.ts" --scenario initialize
// The suite appends its server's URL and names the scenario in MCP_CONFORMANCE_SCENARIO. The
// client is the hub's own: the transport, allowlist and listing of layers/agents/core/mcp
// (the URL given is the only allowlisted one); each listed tool is called once with arguments
// drawn from its schema, and its result read as the engine reads it.
import { mcpListing, mcpTransport, newMcpClient } from '#layers/agents/core/mcp/connections'
import { resultText } from '#layers/agents/core/mcp/tools'
import { runCli } from './lib/cli'

/** A value of each required property's type (the suite's tools take numbers and strings). */
function sampleArguments(schema: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, { type?: string, default?: unknown }>
  return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, property.default ?? ({ number: 2, integer: 2, boolean: true, string: 'conformance' } as Record<string, unknown>)[property.type ?? 'string'] ?? null]))
}

runCli(async () => {
  const url = process.argv.at(-1)!
  const transport = mcpTransport(
    { name: 'conformance', transport: 'http', command: null, args: [], url, envNames: [], headerEnvName: null },
    { env: {}, wrapCommand: () => { throw new Error('no stdio server here') }, httpAllowlist: [new URL(url).href] },
  )
  const client = newMcpClient()
  await client.connect(transport)
  try {
    for (const tool of await mcpListing(client)) {
      if (tool.kind !== 'tool') continue
      const result = await client.callTool({ name: tool.name, arguments: sampleArguments(tool.inputSchema) })
      process.stdout.write(`${tool.name}: ${resultText(result as never).slice(0, 200)}\n`)
    }
  }
  finally {
    await client.close()
  }
  return 0
})
