import { mailboxStatus } from '#layers/atlas/core/mailbox-status'

// Any signed-in role: whether a mailbox is configured (never its password) and when it was last polled.
export default defineEventHandler(async () => {
  return await mailboxStatus(await useDb(), process.env)
})
