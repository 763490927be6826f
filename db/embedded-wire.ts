// The few PostgreSQL wire-protocol messages the embedded socket reads or writes itself:
// the start-up and MD5 password exchange (PGlite trusts everyone), errors, and the
// statement and portal names it namespaces per connection.
import { createHash, timingSafeEqual } from 'node:crypto'

export const PROTOCOL_3 = 196608
export const SSL_REQUEST = 80877103
export const GSSENC_REQUEST = 80877104
export const CANCEL_REQUEST = 80877102

/** Length of the first complete message in buffer (0 when incomplete); start-up messages have no type byte. */
export function completeMessageLength(buffer: Buffer, startup: boolean): number {
  if (startup) {
    if (buffer.length < 4) return 0
    const length = buffer.readInt32BE(0)
    return buffer.length >= length ? length : 0
  }
  if (buffer.length < 5) return 0
  const length = 1 + buffer.readInt32BE(1)
  return buffer.length >= length ? length : 0
}

/** The key/value parameters of a StartupMessage (user, database, options…). */
export function startupParameters(message: Buffer): Record<string, string> {
  const parts = message.subarray(8).toString('utf8').split('\0')
  const parameters: Record<string, string> = {}
  for (let i = 0; i + 1 < parts.length && parts[i]; i += 2) parameters[parts[i]!] = parts[i + 1]!
  return parameters
}

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5)
  header.write(type, 0, 'latin1')
  header.writeInt32BE(4 + body.length, 1)
  return Buffer.concat([header, body])
}

export function md5PasswordRequest(salt: Buffer): Buffer {
  const body = Buffer.alloc(8)
  body.writeInt32BE(5, 0)
  salt.copy(body, 4)
  return message('R', body)
}

const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex')

/** True when a PasswordMessage answers the MD5 challenge for user with password. */
export function passwordMatches(passwordMessage: Buffer, user: string, password: string, salt: Buffer): boolean {
  const given = Buffer.from(passwordMessage.subarray(5, passwordMessage.length - 1).toString('utf8'))
  const expected = Buffer.from(`md5${md5(Buffer.concat([Buffer.from(md5(password + user)), salt]))}`)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export function errorResponse(severity: 'ERROR' | 'FATAL', code: string, text: string): Buffer {
  const fields = [`S${severity}`, `V${severity}`, `C${code}`, `M${text}`].map(field => `${field}\0`).join('')
  return message('E', Buffer.from(`${fields}\0`, 'utf8'))
}

export function readyForQuery(status: 'I' | 'T' | 'E' = 'I'): Buffer {
  return message('Z', Buffer.from(status, 'latin1'))
}

/** A one-column text result, as a simple query would return it. */
export function textRows(column: string, rows: string[]): Buffer {
  const name = Buffer.from(`${column}\0`, 'utf8')
  const description = Buffer.alloc(2 + name.length + 18)
  description.writeInt16BE(1, 0)
  name.copy(description, 2)
  const at = 2 + name.length
  description.writeInt32BE(0, at) // table oid
  description.writeInt16BE(0, at + 4) // column number
  description.writeInt32BE(25, at + 6) // text
  description.writeInt16BE(-1, at + 10)
  description.writeInt32BE(-1, at + 12)
  description.writeInt16BE(0, at + 16) // text format
  const parts = [message('T', description)]
  for (const row of rows) {
    const value = Buffer.from(row, 'utf8')
    const body = Buffer.alloc(6 + value.length)
    body.writeInt16BE(1, 0)
    body.writeInt32BE(value.length, 2)
    value.copy(body, 6)
    parts.push(message('D', body))
  }
  parts.push(message('C', Buffer.from(`SELECT ${rows.length}\0`, 'latin1')), readyForQuery())
  return Buffer.concat(parts)
}

/** The text of a simple Query message. */
export function queryText(query: Buffer): string {
  return query.subarray(5, query.length - 1).toString('utf8')
}

function cString(buffer: Buffer, at: number): { value: string, end: number } {
  const end = buffer.indexOf(0, at)
  return { value: buffer.subarray(at, end).toString('utf8'), end: end + 1 }
}

/** The SQL of a simple Query or a Parse message; null for any other message. */
export function statementText(input: Buffer): string | null {
  if (input[0] === 0x51) return queryText(input)
  if (input[0] !== 0x50) return null
  return cString(input, cString(input, 5).end).value
}

/**
 * Words of the statements that may leave state in the session a reset clears: settings
 * and role, SQL-level PREPARE, cursors, LISTEN, temporary objects, sequences' currval.
 * Deliberately broad (an UPDATE's SET, any INSERT count), so only plain reads skip the
 * reset. A function that changes a setting inside its own body is not seen: careless
 * clients (pg_dump, psql) change settings with SET or set_config, which are.
 */
const SESSION_CHANGING = /\b(?:set|reset|set_config|prepare|deallocate|listen|unlisten|notify|temp|temporary|pg_temp|declare|discard|insert|copy|merge|nextval|setval|do|call|load|role|authorization)\b/i

export function mayChangeSession(sql: string): boolean {
  return SESSION_CHANGING.test(sql)
}

/**
 * Prefixes the statement and portal names of Parse, Bind, Describe, Close and Execute,
 * so one connection's prepared statements are invisible to the others on the shared
 * backend. The unnamed ones ('') live only until the connection's Sync, which it owns.
 */
export function namespaceNames(input: Buffer, prefix: string, seen: { parsed?: string, closed?: string } = {}): Buffer {
  const type = String.fromCharCode(input[0]!)
  const rename = (name: string) => name ? `${prefix}${name}` : ''
  let names: string[]
  let rest: number
  let head = ''
  if (type === 'P' || type === 'E') {
    const first = cString(input, 5)
    names = [rename(first.value)]
    rest = first.end
    if (type === 'P') seen.parsed = names[0]
  }
  else if (type === 'B') {
    const portal = cString(input, 5)
    const statement = cString(input, portal.end)
    names = [rename(portal.value), rename(statement.value)]
    rest = statement.end
  }
  else if (type === 'D' || type === 'C') {
    head = String.fromCharCode(input[5]!)
    const name = cString(input, 6)
    names = [rename(name.value)]
    rest = name.end
    if (type === 'C' && head === 'S') seen.closed = names[0]
  }
  else {
    return input
  }
  const body = Buffer.concat([Buffer.from(head, 'latin1'), ...names.map(name => Buffer.from(`${name}\0`, 'utf8')), input.subarray(rest)])
  return message(type, body)
}
