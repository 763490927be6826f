// Issue 18, "Done when": no path lets a debrief or a skill proposal reach the reflex memory,
// the vault's permanent zone, the agents' directives (their persona rows) or the skills
// registry without a recorded human action. Each automate of this part runs as a real
// process through the supervision wrapper — `--force`, `--dry-run` and a normal run — with
// scripted loopback models, and those destinations are compared byte for byte before and after.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeOnBothDatabases } from '#tests/helpers/databases'
import { runTs } from '#tests/helpers/processes'
import { agents } from '#db/schema/agents'
import { skills } from '#db/schema/skills'
import { learnSkillProposals } from '#db/schema/learn-skills'
import { startScriptedModel, type ScriptedModel } from '#layers/atlas/tests/fakes/model'
import { memoryFolders, type MemoryFolders } from '#layers/memory/tests/fixtures/folders'
import { worksite } from '#layers/worksites/tests/fixtures/world'
import { DEBRIEF_SECTIONS } from '../../core/debrief/prompt'
import { spawnOn } from '../fixtures/spawns'

const AGENT = fileURLToPath(new URL('../fixtures/debrief-agent.mjs', import.meta.url))
const TIMEOUT = 240_000

function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  if (!existsSync(root)) return out
  for (const name of readdirSync(root, { recursive: true }) as string[]) {
    const path = join(root, name)
    if (statSync(path).isFile()) out[name] = createHash('sha256').update(readFileSync(path)).digest('hex')
  }
  return out
}

describeOnBothDatabases('no path to the protected destinations without a human', (database) => {
  let model: ScriptedModel
  let folders: MemoryFolders
  beforeAll(async () => {
    model = await startScriptedModel()
    folders = memoryFolders('synedre-guard-')
    mkdirSync(folders.reflexDir, { recursive: true })
    writeFileSync(join(folders.reflexDir, 'MEMORY.md'), '# Reflexes\n- Always run the smoke test.\n')
    mkdirSync(join(folders.vaultDir, 'permanent'), { recursive: true })
    writeFileSync(join(folders.vaultDir, 'permanent', 'deploy.md'), '---\ntitle: Deploy\n---\nThe deploy doctrine.\n')
    const db = database().db
    await db.insert(agents).values({ codename: 'guard-dev', nickname: 'Guard', personality: 'Careful.', jobMission: 'Ships code.' }).onConflictDoNothing()
    await db.insert(skills).values({ name: 'existing-skill', description: 'd', body: 'b', createdBy: 'founder@studio.test' })
  })
  afterAll(async () => {
    await model?.close()
    folders?.remove()
  })

  async function destinations() {
    const db = database().db
    return {
      reflex: tree(folders.reflexDir),
      permanent: tree(join(folders.vaultDir, 'permanent')),
      agents: JSON.stringify(await db.select().from(agents).orderBy(agents.id)),
      skills: JSON.stringify(await db.select().from(skills).orderBy(skills.id)),
    }
  }

  it('every automate, --force included, leaves them byte for byte as they were; the drafts go to the inbox and the proposals wait', async () => {
    const db = database().db
    const big = await worksite(db, 3)
    const small = await worksite(db, 1)
    const spawns: string[] = []
    for (const task of big.tasks) spawns.push(await spawnOn(db, { taskId: task.id, events: [{ type: 'assistant', text: 'Screenshot before deploy' }] }))
    spawns.push(await spawnOn(db, { taskId: small.tasks[0]!.id, events: [{ type: 'assistant', text: 'Screenshot before deploy' }] }))
    const good = DEBRIEF_SECTIONS.map((title, i) => `## ${i + 1}. ${title}\nscripted`).join('\n')
    model.byDefault(prompt => prompt.includes('<bundle>')
      ? good
      : JSON.stringify({ patterns: [{ pattern: 'Screenshot before deploy', name: 'existing-skill', description: 'A duplicate of a skill.', body: 'The duplicate body.', tags: [], spawnIds: spawns }, { pattern: 'Screenshot before deploy', name: 'screenshot-first', description: 'Screenshot each page first.', body: '1. Screenshot.', tags: ['qa'], spawnIds: spawns }] }))
    const before = await destinations()
    const env = { ...model.env, DATABASE_URL: database().url, VAULT_DIR: folders.vaultDir, REFLEX_DIR: folders.reflexDir, SPAWN_AGENT_BIN: AGENT, DEBRIEF_AGENT_MODE: 'garbage', LEARNING_PROPOSAL_THRESHOLD: '0' }
    const runs: Array<[string[], number]> = [
      [['learning-debrief', '--project', small.project.id], 3],
      [['learning-debrief', '--project', small.project.id, '--force', '--dry-run'], 0],
      [['learning-debrief', '--project', small.project.id, '--force', '--json'], 0],
      [['learning-debrief', '--project', big.project.id, '--via', 'facade'], 0],
      [['learning-skill-detector', '--dry-run'], 0],
      [['learning-skill-detector', '--limit', '20', '--json'], 0],
      [['learning-skill-detector'], 0],
      [['learning-proposal-monitor', '--json'], 0],
      [['learning-proposal-monitor', '--dry-run'], 0],
    ]
    for (const [args, code] of runs) {
      const result = await runTs('automates/run.ts', args, { env })
      expect(result.code, `${args.join(' ')}\n${result.output}`).toBe(code)
    }
    expect(await destinations()).toEqual(before)
    // Not vacuous: the runs did write where they may.
    const drafts = readdirSync(join(folders.vaultDir, 'inbox', 'debriefs'))
    expect(drafts).toHaveLength(2)
    for (const draft of drafts) expect(readFileSync(join(folders.vaultDir, 'inbox', 'debriefs', draft), 'utf8')).toContain('status: draft')
    const proposals = await db.select().from(learnSkillProposals)
    expect(proposals.map(p => [p.name, p.status])).toEqual([['screenshot-first', 'pending']])
    const [alerts] = await db.execute<{ n: number }>(sql`select count(*)::int as n from ops_alerts where kind = 'skill_proposals_backlog'`)
    expect(alerts!.n).toBe(1) // raised, not mailed (no SMTP in this test): the run says "not configured"
    const [runsLogged] = await db.execute<{ n: number }>(sql`select count(*)::int as n from ops_cron_runs where automation like 'learning-%'`)
    expect(runsLogged!.n).toBe(runs.length)
  }, TIMEOUT)
})
