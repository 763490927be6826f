// The studio's clients as the hub changes them, on both databases: created with a slug of their
// own, a domain another active client owns refused (also when two people add it at once),
// deactivation freeing the domain and stopping attribution, every change audited with what it was
// and what it became; the classifier's tenant attribution reads the rows at once; a branch and a
// deploy picked by name among the environment's commands (never a command typed in the hub).
import { and, eq } from 'drizzle-orm'
import { expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { hubAudit } from '#db/schema/hub'
import { resolveTenant } from '#layers/atlas/core/tenants'
import { createClient, setClientActive, slugOf, updateClient } from '../../core/clients'
import { deployCommandFor, readDeployCommands } from '../../core/deploy-commands'
import { ClientCreate, ClientPatch } from '../../core/schemas'

const FOUNDER = 'founder@studio.test'
const input = (fields: Record<string, unknown>) => ClientCreate.parse(fields)
/** The names SPAWN_DEPLOY_COMMANDS would define. */
const DEPLOYS = ['static-site', 'nuxt-app']

describeOnBothDatabases('clients from the hub', (database) => {
  it('creates a client with its own slug, and the classifier attributes its domain and contacts at once', async () => {
    const { db } = database()
    const created = await createClient(db, input({ name: 'Boulangerie Étoile', domains: ['Etoile-Pain.example'], contacts: [{ email: 'Chef@Gmail.example', name: 'Chef' }], repository: 'https://forge.example/etoile/site.git', preprodUrl: 'https://preprod.etoile.example', ai: { provider: 'mistral', model: 'mistral-small-latest' } }), FOUNDER, DEPLOYS)
    expect(created).toMatchObject({ ok: true, client: { slug: 'boulangerie-etoile', domains: ['etoile-pain.example'], repository: 'https://forge.example/etoile/site.git', ai: { provider: 'mistral', model: 'mistral-small-latest' }, active: true } })
    const again = await createClient(db, input({ name: 'Boulangerie Etoile' }), FOUNDER, DEPLOYS)
    expect(again).toMatchObject({ ok: true, client: { slug: 'boulangerie-etoile-2' } })
    expect(await resolveTenant(db, 'commande@etoile-pain.example')).toMatchObject({ slug: 'boulangerie-etoile', matchedBy: 'domain' })
    expect(await resolveTenant(db, 'chef@gmail.example')).toMatchObject({ slug: 'boulangerie-etoile' })
    const [audit] = await db.select().from(hubAudit).where(and(eq(hubAudit.action, 'client_created'), eq(hubAudit.target, 'boulangerie-etoile')))
    expect(audit).toMatchObject({ actor: FOUNDER, details: { after: { name: 'Boulangerie Étoile', domains: ['etoile-pain.example'] } } })
  })

  it('refuses a domain another active client owns, also when two add it at once; deactivation frees it and stops attribution', async () => {
    const { db } = database()
    const first = await createClient(db, input({ name: 'Garage Nord', domains: ['garage-nord.example'] }), FOUNDER, DEPLOYS)
    expect(first.ok).toBe(true)
    expect(await createClient(db, input({ name: 'Usurpateur', domains: ['other.example', 'garage-nord.example'] }), FOUNDER, DEPLOYS))
      .toEqual({ ok: false, code: 'domain_taken', domain: 'garage-nord.example', owner: 'Garage Nord' })
    const racing = await Promise.all([1, 2].map(n => createClient(db, input({ name: `Rival ${n}`, domains: ['rivals.example'] }), FOUNDER, DEPLOYS)))
    expect(racing.filter(change => change.ok)).toHaveLength(1)
    expect(racing.find(change => !change.ok)).toMatchObject({ code: 'domain_taken', domain: 'rivals.example' })
    const id = first.ok ? first.client.id : ''
    expect(await setClientActive(db, id, false, FOUNDER)).toMatchObject({ ok: true, client: { active: false } })
    expect(await resolveTenant(db, 'atelier@garage-nord.example')).toBeNull()
    const successor = await createClient(db, input({ name: 'Garage Nord Repreneur', domains: ['garage-nord.example'] }), FOUNDER, DEPLOYS)
    expect(successor.ok).toBe(true)
    // The former owner cannot come back with the domain someone else now has.
    expect(await setClientActive(db, id, true, FOUNDER)).toMatchObject({ ok: false, code: 'domain_taken', owner: 'Garage Nord Repreneur' })
    expect(await db.select({ action: hubAudit.action }).from(hubAudit).where(eq(hubAudit.target, 'garage-nord'))).toEqual([{ action: 'client_created' }, { action: 'client_deactivated' }])
  })

  it('changes only what is sent, clears a field set to null, and audits before and after', async () => {
    const { db } = database()
    const created = await createClient(db, input({ name: 'Cabinet Lune', domains: ['lune.example'], preprodUrl: 'https://preprod.lune.example', ai: { provider: 'anthropic' } }), FOUNDER, DEPLOYS)
    const id = created.ok ? created.client.id : ''
    const changed = await updateClient(db, id, ClientPatch.parse({ preprodUrl: null, domains: ['lune.example', 'lune.fr'] }), 'op@studio.test', DEPLOYS)
    expect(changed).toMatchObject({ ok: true, client: { name: 'Cabinet Lune', preprodUrl: null, domains: ['lune.example', 'lune.fr'], ai: { provider: 'anthropic' } } })
    const [audit] = await db.select().from(hubAudit).where(and(eq(hubAudit.action, 'client_updated'), eq(hubAudit.target, 'cabinet-lune')))
    expect(audit!.details).toMatchObject({ before: { preprodUrl: 'https://preprod.lune.example', domains: ['lune.example'] }, after: { preprodUrl: null, domains: ['lune.example', 'lune.fr'] } })
    expect(await updateClient(db, '00000000-0000-4000-8000-000000000000', ClientPatch.parse({ name: 'x' }), FOUNDER, DEPLOYS)).toEqual({ ok: false, code: 'not_found' })
  })

  it('keeps a branch and a deploy name the environment defines, refuses one it does not, and audits the change', async () => {
    const { db } = database()
    const created = await createClient(db, input({ name: 'Atelier Soleil', domains: ['soleil.example'], repository: '/srv/git/soleil.git', branch: 'preprod', deploy: 'static-site' }), FOUNDER, DEPLOYS)
    expect(created).toMatchObject({ ok: true, client: { branch: 'preprod', deploy: 'static-site', repository: '/srv/git/soleil.git' } })
    const id = created.ok ? created.client.id : ''
    expect(await createClient(db, input({ name: 'Atelier Ombre', deploy: 'rm-everything' }), FOUNDER, DEPLOYS)).toEqual({ ok: false, code: 'unknown_deploy', deploy: 'rm-everything', known: DEPLOYS })
    expect(await db.select().from(hubAudit).where(eq(hubAudit.target, 'atelier-ombre'))).toEqual([])
    expect(await updateClient(db, id, ClientPatch.parse({ deploy: 'gone' }), FOUNDER, DEPLOYS)).toMatchObject({ ok: false, code: 'unknown_deploy' })
    const changed = await updateClient(db, id, ClientPatch.parse({ branch: 'release/2026-12', deploy: 'nuxt-app' }), 'op@studio.test', DEPLOYS)
    expect(changed).toMatchObject({ ok: true, client: { branch: 'release/2026-12', deploy: 'nuxt-app', domains: ['soleil.example'] } })
    const cleared = await updateClient(db, id, ClientPatch.parse({ deploy: null, branch: null }), 'op@studio.test', DEPLOYS)
    expect(cleared).toMatchObject({ ok: true, client: { branch: null, deploy: null, repository: '/srv/git/soleil.git' } })
    const audits = await db.select().from(hubAudit).where(and(eq(hubAudit.action, 'client_updated'), eq(hubAudit.target, 'atelier-soleil'))).orderBy(hubAudit.id)
    expect(audits.map(a => a.details)).toMatchObject([
      { before: { branch: 'preprod', deploy: 'static-site' }, after: { branch: 'release/2026-12', deploy: 'nuxt-app' } },
      { before: { branch: 'release/2026-12', deploy: 'nuxt-app' }, after: { branch: null, deploy: null } },
    ])
  })
})

it('reads the deploy commands from the environment, refusing an unreadable variable with its name', () => {
  const commands = readDeployCommands({ DEPLOY_COMMAND: ' ./deploy.sh {tenant} ', SPAWN_DEPLOY_COMMANDS: '{"static-site":"rsync -a dist/ /srv/www/{tenant}/","nuxt-app":"./deploy-nuxt.sh"}' })
  expect(commands).toEqual({ fallback: './deploy.sh {tenant}', named: { 'static-site': 'rsync -a dist/ /srv/www/{tenant}/', 'nuxt-app': './deploy-nuxt.sh' } })
  expect(deployCommandFor(commands, null)).toBe('./deploy.sh {tenant}')
  expect(deployCommandFor(commands, 'nuxt-app')).toBe('./deploy-nuxt.sh')
  expect(() => deployCommandFor(commands, 'gone')).toThrow('SPAWN_DEPLOY_COMMANDS: the client\'s deploy "gone" is not defined (defined: static-site, nuxt-app)')
  expect(readDeployCommands({})).toEqual({ fallback: undefined, named: {} })
  expect(() => readDeployCommands({ SPAWN_DEPLOY_COMMANDS: '{static-site: x}' })).toThrow(/^SPAWN_DEPLOY_COMMANDS: not JSON/)
  expect(() => readDeployCommands({ SPAWN_DEPLOY_COMMANDS: '["x"]' })).toThrow('SPAWN_DEPLOY_COMMANDS: expected a JSON object, name → command')
  expect(() => readDeployCommands({ SPAWN_DEPLOY_COMMANDS: '{"Bad Name":"x"}' })).toThrow(/"Bad Name" is not a deploy name/)
  expect(() => readDeployCommands({ SPAWN_DEPLOY_COMMANDS: '{"empty":"  "}' })).toThrow(/the command of "empty" must be a non-empty string/)
})

it('reads the form strictly: domains, repository, provider, and nothing unknown', () => {
  expect(slugOf('  Éléphant & Cie!  ')).toBe('elephant-cie')
  expect(ClientCreate.safeParse({ name: 'x', domains: ['not a domain'] }).success).toBe(false)
  expect(ClientCreate.safeParse({ name: 'x', repository: '--upload-pack=evil' }).success).toBe(false)
  expect(ClientCreate.safeParse({ name: 'x', preprodUrl: 'javascript:alert(1)' }).success).toBe(false)
  expect(ClientCreate.safeParse({ name: 'x', ai: { provider: 'nobody' } }).success).toBe(false)
  expect(ClientCreate.safeParse({ name: 'x', tenantId: 'y' }).success).toBe(false)
  expect(ClientPatch.safeParse({}).success).toBe(false)
  for (const branch of ['main', 'release/2026-12', 'feature/a.b_c+d', 'v1.2']) expect(ClientPatch.safeParse({ branch }).success, branch).toBe(true)
  for (const branch of ['-upload', '--upload-pack=evil', 'a..b', 'a b', '.hidden', 'a/', 'a.lock', 'a//b', 'a@{1}', 'x~1', 'a:b']) expect(ClientPatch.safeParse({ branch }).success, branch).toBe(false)
  // A deploy is a name: a command typed in the form is refused before any lookup.
  for (const deploy of ['rm -rf /', './deploy.sh', 'Static', '-x']) expect(ClientPatch.safeParse({ deploy }).success, deploy).toBe(false)
})
