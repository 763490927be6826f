// "Show secret" and "Rotate secret" on a webhook trigger: the person who may edit the agent
// reads the secret to paste it into the forge. The first showing makes it; rotating makes a
// new one (the forge must be given it: deliveries signed with the old one are refused). Both
// are audited, the secret itself never.
import { and, eq } from 'drizzle-orm'
import type { Db } from '#db/connection'
import { recordAudit } from '#db/audit'
import { agentTriggers } from '#db/schema/custom-agents'
import { EngineError } from '../engine/errors'
import { editableAgent, type Editor } from './agents'
import { newHook, openSecret, sealSecret } from './webhook-secrets'

export async function revealHookSecret(
  db: Db,
  editor: Editor,
  name: string,
  slug: string,
  sealKey: Buffer,
  rotate: boolean,
): Promise<{ slug: string, secret: string, rotated: boolean }> {
  await editableAgent(db, editor, name, 'edit')
  const [trigger] = await db
    .select({ id: agentTriggers.id, hookSecret: agentTriggers.hookSecret })
    .from(agentTriggers)
    .where(and(eq(agentTriggers.codename, name), eq(agentTriggers.kind, 'webhook'), eq(agentTriggers.hookSlug, slug)))
  if (!trigger) throw new EngineError('not_found', `${name} has no webhook ${slug}`, 404)
  const current = trigger.hookSecret === null ? null : openSecret(sealKey, trigger.hookSecret)
  // A secret sealed under an older hub key cannot be shown: it is replaced, as a rotation.
  const make = rotate || current === null
  const secret = make ? newHook().secret : current!
  if (make)
    await db
      .update(agentTriggers)
      .set({ hookSecret: sealSecret(sealKey, secret) })
      .where(eq(agentTriggers.id, trigger.id))
  await recordAudit(db, {
    actor: editor.email,
    action: make ? 'agent_webhook_secret_rotated' : 'agent_webhook_secret_shown',
    target: `agent:${name}`,
    details: { slug, first: trigger.hookSecret === null },
  })
  return { slug, secret, rotated: make }
}
