// The MCP conformance suite (@modelcontextprotocol/conformance) in its client role against the
// hub's own MCP transport and listing (scripts/mcp-conformance-client.ts): the handshake, a tool
// call, and the SSE stream resumed after the server closes it, honouring its retry delay. The
// elicitation scenario fails by design (the hub's client declares no elicitation) and the auth
// scenarios need OAuth, which the hub does not run: docs/agents-and-skills.md says so.
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ROOT } from '#tests/helpers/processes'

const requireHere = createRequire(import.meta.url)
const SUITE = join(dirname(requireHere.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js')
const TSX = join(dirname(requireHere.resolve('tsx/package.json')), 'dist', 'cli.mjs')
const CLIENT = `${process.execPath} ${TSX} scripts/mcp-conformance-client.ts`

async function scenario(name: string): Promise<{ code: number, output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [SUITE, 'client', '--command', CLIENT, '--scenario', name], { cwd: ROOT, timeout: 90_000 })
    return { code: 0, output: stdout + stderr }
  }
  catch (error) {
    const failed = error as { code?: number, stdout?: string, stderr?: string }
    return { code: failed.code ?? 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` }
  }
}

describe('MCP conformance, client role', () => {
  it.each(['initialize', 'tools_call', 'sse-retry'])('passes %s', async (name) => {
    const result = await scenario(name)
    expect(result.output).toContain('OVERALL: PASSED')
    expect(result.output).toMatch(/Passed: (\d+)\/\1, 0 failed/)
    expect(result.code).toBe(0)
  }, 120_000)

  it('fails elicitation by design: the hub\'s client answers that it has no such method', async () => {
    const result = await scenario('elicitation-sep1034-client-defaults')
    expect(result.output).toContain('Method not found')
    expect(result.code).not.toBe(0)
  }, 120_000)
})
