// A real Dovecot IMAP server for the tests: started in the foreground on a loopback port
// with a configuration written into a temporary folder (passwd-file users, maildir under
// the same folder), no system service and no change to /etc; stopped (and its folder
// removed) by stop().
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { ImapFlow } from 'imapflow'
import { findBinary } from './binaries'
import { startDaemon } from './daemon'
import { freePort } from './ports'

export interface DovecotUser { user: string, password: string }

export interface Dovecot {
  host: string
  port: number
  dir: string
  /** The collector's environment for one user and mailbox. */
  env: (user: DovecotUser, mailbox?: string) => Record<string, string>
  /** A logged-in client (the caller logs out). */
  client: (user: DovecotUser) => Promise<ImapFlow>
  /** Appends raw messages (unseen) to a mailbox, created when missing. */
  append: (user: DovecotUser, mailbox: string, messages: Array<Buffer | string>) => Promise<void>
  /** UID → flags of every message of a mailbox. */
  flags: (user: DovecotUser, mailbox: string) => Promise<Map<number, Set<string>>>
  log: () => string
  stop: () => Promise<void>
}

function systemUser(name: string): { uid: number, gid: number } | null {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    const [user, , uid, gid] = line.split(':')
    if (user === name) return { uid: Number(uid), gid: Number(gid) }
  }
  return null
}

export async function startDovecot(users: DovecotUser[]): Promise<Dovecot> {
  const binary = findBinary('dovecot', 'dovecot-imapd')
  const dir = mkdtempSync(join(tmpdir(), 'atlas-dovecot-'))
  chmodSync(dir, 0o755)
  const mail = join(dir, 'mail')
  for (const sub of ['run', 'state', 'mail']) mkdirSync(join(dir, sub))
  const root = process.getuid?.() === 0
  let mailOwner: { uid: number, gid: number }
  let runAs = ''
  if (root) {
    const dovecot = systemUser('dovecot')
    if (!dovecot) throw new Error('the dovecot system user is missing: reinstall dovecot-core (scripts/setup-system.sh)')
    mailOwner = dovecot
    chownSync(mail, dovecot.uid, dovecot.gid)
  }
  else {
    mailOwner = { uid: process.getuid!(), gid: process.getgid!() }
    const me = userInfo().username
    runAs = `default_internal_user = ${me}\ndefault_login_user = ${me}\n`
  }
  writeFileSync(join(dir, 'passwd'), users.map(u => `${u.user}:{PLAIN}${u.password}`).join('\n') + '\n', { mode: 0o644 })
  const port = await freePort()
  const conf = join(dir, 'dovecot.conf')
  writeFileSync(conf, `# Written by the Atlas tests; removed when they stop.
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
instance_name = atlas-test-${process.pid}-${port}
${runAs}protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${mail}/%u
first_valid_uid = 1
first_valid_gid = 1
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${mailOwner.uid} gid=${mailOwner.gid} home=${mail}/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service stats {
  unix_listener stats-reader {
    mode = 0666
  }
  unix_listener stats-writer {
    mode = 0666
  }
}
`)
  const daemon = await startDaemon({
    binary, args: ['-F', '-c', conf], dir, logFile: join(dir, 'dovecot.log'), what: `Dovecot on 127.0.0.1:${port}`,
    ready: () => new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port })
      socket.once('data', (chunk) => {
        socket.destroy()
        resolve(chunk.toString().startsWith('* OK'))
      })
      socket.once('error', () => resolve(false))
    }),
    readyTimeoutMs: 15_000,
  })

  const client = async (user: DovecotUser) => {
    const imap = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user: user.user, pass: user.password }, logger: false, disableAutoIdle: true })
    await imap.connect()
    return imap
  }
  return {
    host: '127.0.0.1',
    port,
    dir,
    env: (user, mailbox = 'INBOX') => ({
      ATLAS_IMAP_HOST: '127.0.0.1',
      ATLAS_IMAP_PORT: String(port),
      ATLAS_IMAP_SECURE: '0',
      ATLAS_IMAP_USER: user.user,
      ATLAS_IMAP_PASSWORD: user.password,
      ATLAS_IMAP_MAILBOX: mailbox,
    }),
    client,
    append: async (user, mailbox, messages) => {
      const imap = await client(user)
      try {
        if (mailbox !== 'INBOX') await imap.mailboxCreate(mailbox).catch(() => {})
        for (const message of messages) await imap.append(mailbox, message, [])
      }
      finally {
        await imap.logout()
      }
    },
    flags: async (user, mailbox) => {
      const imap = await client(user)
      try {
        const lock = await imap.getMailboxLock(mailbox)
        try {
          const result = new Map<number, Set<string>>()
          if ((imap.mailbox && imap.mailbox.exists) || 0) {
            for (const message of await imap.fetchAll('1:*', { uid: true, flags: true })) result.set(message.uid, message.flags ?? new Set())
          }
          return result
        }
        finally {
          lock.release()
        }
      }
      finally {
        await imap.logout()
      }
    },
    log: daemon.log,
    stop: daemon.stop,
  }
}
