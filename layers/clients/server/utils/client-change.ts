import type { ClientChange } from '#layers/clients/core/clients'
import { DeployCommandsError, readDeployCommands } from '#layers/clients/core/deploy-commands'
import type { ClientView, DeployChoices } from '#layers/clients/core/schemas'

/** The deploy names the environment defines (SPAWN_DEPLOY_COMMANDS); an unreadable variable is the studio's error, said as such. */
export function deployChoices(): DeployChoices {
  try {
    const commands = readDeployCommands(process.env)
    return { names: Object.keys(commands.named).sort(), hasDefault: commands.fallback !== undefined }
  }
  catch (error) {
    if (!(error instanceof DeployCommandsError)) throw error
    throw createError({ statusCode: 500, statusMessage: 'The deploy commands are misconfigured.', data: { code: 'deploy_commands_invalid', message: error.message } })
  }
}

/** A refused client change as its 4xx: 404 not_found, 400 unknown_deploy, 409 domain_taken or slug_taken. */
export function clientOrThrow(change: ClientChange): ClientView {
  if (change.ok) return change.client
  if (change.code === 'not_found') throw createError({ statusCode: 404, statusMessage: 'No such client.', data: { code: 'not_found' } })
  if (change.code === 'unknown_deploy') {
    const message = `No deploy command is named "${change.deploy}" (defined: ${change.known.length ? change.known.join(', ') : 'none; see SPAWN_DEPLOY_COMMANDS'}).`
    throw createError({ statusCode: 400, statusMessage: message, data: { code: 'unknown_deploy', message, known: change.known } })
  }
  const message = change.code === 'domain_taken'
    ? `The domain ${change.domain} already belongs to ${change.owner}: remove it there first.`
    : `The slug ${change.slug} is taken: choose another.`
  throw createError({ statusCode: 409, statusMessage: message, data: { code: change.code, message, ...(change.code === 'domain_taken' ? { domain: change.domain, owner: change.owner } : { slug: change.slug }) } })
}
