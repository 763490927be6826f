#!/usr/bin/env node
// A stand-in for the agent CLI in headless print mode (`claude -p --output-format=json`):
// prints the single result object the real CLI prints. FAKE_CLAUDE_MODE picks a variant:
// ok (default), error (is_error result), garbage (no result object), hang (never answers),
// env (answers with the names of the environment variables it received), args (answers
// with its arguments as JSON).
const mode = process.env.FAKE_CLAUDE_MODE ?? 'ok'
const args = process.argv.slice(2)
const prompt = args[args.indexOf('--') + 1] ?? ''
const model = (args.find(a => a.startsWith('--model=')) ?? '--model=claude-sonnet-4-6').slice('--model='.length)
const result = (text, extra = {}) => JSON.stringify({
  type: 'result',
  subtype: 'success',
  is_error: false,
  duration_ms: 1234,
  duration_api_ms: 1100,
  num_turns: 1,
  result: text,
  session_id: 'fake-session',
  total_cost_usd: 0.0042,
  usage: { input_tokens: 30, cache_creation_input_tokens: 5, cache_read_input_tokens: 100, output_tokens: 12 },
  modelUsage: { [model]: { inputTokens: 30, outputTokens: 12, costUSD: 0.0042 } },
  ...extra,
})
if (mode === 'hang') setInterval(() => {}, 1000)
else if (mode === 'garbage') {
  process.stdout.write('Welcome to the agent\nnot json {\n')
  process.exit(1)
}
else if (mode === 'error') {
  process.stdout.write(`${result('API Error: 529 Overloaded', { subtype: 'error_during_execution', is_error: true })}\n`)
  process.exit(1)
}
else if (mode === 'env') process.stdout.write(`${result(JSON.stringify(Object.keys(process.env).sort()))}\n`)
else if (mode === 'args') process.stdout.write(`${result(JSON.stringify(args))}\n`)
else process.stdout.write(`some banner noise\n${result(`agent says: ${prompt}`)}\n`)
