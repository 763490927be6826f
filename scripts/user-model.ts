// user-model [--slice core|…] [--user SUBJECT] [--json | --format-briefing] [--private]
// Reads the user model (mem_user_model). The core slice (for briefings, under 1,000 tokens)
// never holds the private dimension, which only --private shows. Exit 0 shown, 2 bad flags,
// 1 no profile.
import { openDatabase } from '#db/client'
import { ArgsError, parseUserModelArgs } from '#layers/memory/core/cli/args'
import { formatForBriefing } from '#layers/memory/core/user-model/briefing'
import { getProfile, UserModelError } from '#layers/memory/core/user-model/profile'
import { runCli, UsageError } from './lib/cli'

runCli(async () => {
  let args
  try {
    args = parseUserModelArgs(process.argv.slice(2))
  }
  catch (error) {
    if (error instanceof ArgsError) throw new UsageError(error.message, `usage: ${error.usage}`)
    throw error
  }
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 2 })
  try {
    const { subject, slice, profile } = await getProfile(database.db, {
      slice: args.slice,
      subject: args.subject ?? undefined,
      allowPrivate: args.allowPrivate,
    })
    if (args.output === 'json') process.stdout.write(`${JSON.stringify({ subject, slice, profile })}\n`)
    else if (args.output === 'briefing') process.stdout.write(`${formatForBriefing(profile, slice)}\n`)
    else process.stdout.write(`${subject} — ${slice}\n${JSON.stringify(profile, null, 2)}\n`)
    return 0
  }
  catch (error) {
    if (error instanceof UserModelError) throw new UsageError(error.message, 'Name a person with --user, or add their profile to mem_user_model.', error.code === 'private_refused' ? 2 : 1)
    throw error
  }
  finally {
    await database.close()
  }
})
