// npm run user:create -- --email EMAIL --role founder|operator|viewer [--name NAME] [--password-stdin]
// Without --password-stdin the password is asked for twice on the terminal, not echoed.
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { openDatabase } from '#db/client'
import { migrateDatabase } from '#db/migrate'
import { createUser, UserInputError } from '#server/core/users'
import { isHubRole } from '#shared/access'
import { runCli, UsageError } from './lib/cli'

async function readStdin(): Promise<string> {
  let text = ''
  for await (const chunk of process.stdin) text += chunk
  return text.replace(/\r?\n$/, '')
}

async function askHidden(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true })
  const output = rl as unknown as { _writeToOutput: (text: string) => void }
  output._writeToOutput = (text: string) => {
    if (text.includes(question)) process.stdout.write(text)
  }
  const answer = await new Promise<string>(resolve => rl.question(question, resolve))
  rl.close()
  process.stdout.write('\n')
  return answer
}

runCli(async () => {
  const { values } = parseArgs({
    options: { 'email': { type: 'string' }, 'role': { type: 'string' }, 'name': { type: 'string' }, 'password-stdin': { type: 'boolean' } },
  })
  if (!values.email) throw new UsageError('--email is required', 'npm run user:create -- --email you@studio.example --role founder')
  if (!isHubRole(values.role)) throw new UsageError(`--role must be founder, operator or viewer (got "${values.role ?? ''}")`, 'npm run user:create -- --email you@studio.example --role founder')
  let password: string
  if (values['password-stdin']) password = await readStdin()
  else {
    if (!process.stdin.isTTY) throw new UsageError('no terminal to ask the password on', 'Pipe it in with --password-stdin.')
    password = await askHidden('Password: ')
    if (await askHidden('Again: ') !== password) throw new UsageError('the two passwords differ', 'Run the command again.')
  }
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, max: 2 })
  try {
    await migrateDatabase(database)
    const user = await createUser(database.db, { email: values.email, name: values.name, role: values.role, password }, 'cli:user:create')
    process.stdout.write(`created ${user.role} ${user.email}\n`)
    return 0
  }
  catch (error) {
    if (error instanceof UserInputError) throw new UsageError(error.message, 'Fix the value and run the command again.', 1)
    throw error
  }
  finally {
    await database.close()
  }
})
