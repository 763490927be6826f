// npm run -s crontab:render | crontab -   — automates/crontab for the system cron, with
// SYNEDRE_HOME set to this checkout (checked first: a line that does not parse stops here).
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { DEFAULT_CRONTAB, readCrontab } from '../automates/supervisor'
import { renderSystemCrontab } from '../layers/health/core/crontab'
import { runCli } from './lib/cli'

runCli(async () => {
  readCrontab(DEFAULT_CRONTAB)
  const home = process.env.SYNEDRE_HOME || fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '')
  process.stdout.write(renderSystemCrontab(readFileSync(DEFAULT_CRONTAB, 'utf8'), home))
  return 0
})
