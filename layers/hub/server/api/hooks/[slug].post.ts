import { receiveWebhook, refusalLimiter } from '#layers/agents/core/custom/webhooks'
import { webhookSealKey } from '#layers/agents/core/custom/webhook-secrets'
import { backgroundLauncher, untrustedFence } from '#layers/hub/core/webhook-wiring'

// A forge's webhook into a custom agent (issue 34, Deliver 6). Public (shared/access.ts):
// the HMAC signature with the trigger's secret is the credential. The request guard has read
// the body already (at most the hub's 1 MB; larger is its 413 before any reading); this
// route answers 202 with the run, or 401/404/409/413/429 with { code }, every refusal audited.
const limiter = refusalLimiter()
const log = (line: string) => console.warn(line)

export default defineEventHandler(async (event) => {
  const slug = getRouterParam(event, 'slug') ?? ''
  const body = (await readRawBody(event, false)) ?? Buffer.alloc(0)
  const { password } = useRuntimeConfig().session as { password: string }
  const answer = await receiveWebhook({
    db: await useDb(),
    // The engine is wired only for a delivery that starts a run: a refusal stays cheap.
    launch: async input => await backgroundLauncher(await useAgentEngine(), log)(input),
    log,
    sealKey: webhookSealKey(password),
    fence: untrustedFence,
    limiter,
  }, { slug, address: getRequestIP(event) ?? 'unknown', headers: event.node.req.headers, body: Buffer.from(body) })
  if (answer.status !== 202) throw createError({ statusCode: answer.status, statusMessage: answer.message, data: { code: answer.code } })
  setResponseStatus(event, 202)
  return { outcome: answer.outcome, runId: answer.runId, deliveryId: answer.deliveryId }
})
