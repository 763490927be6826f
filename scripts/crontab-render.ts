// npm run -s crontab:render | crontab -   — automates/crontab for the system cron, with
// SYNEDRE_HOME set to this checkout (checked first: a line that does not parse stops here),
// and SYNEDRE_ENV_FILE when it is set (the environment file the jobs then read).
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { DEFAULT_CRONTAB, readCrontab } from '#automates/supervisor'
import { renderSystemCrontab } from '#layers/health/core/crontab'
import { runCli } from './lib/cli'

runCli(async () => {
  readCrontab(DEFAULT_CRONTAB)
  const home = process.env.SYNEDRE_HOME || fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '')
  process.stdout.write(renderSystemCrontab(readFileSync(DEFAULT_CRONTAB, 'utf8'), home, process.env.SYNEDRE_ENV_FILE || undefined))
  return 0
})
