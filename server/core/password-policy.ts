// What a hub password must be: long enough, not one of the passwords everyone tries first,
// not a repeated pattern, not the account's own e-mail address.
import { COMMON_PASSWORDS } from './common-passwords'
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '#shared/password'

export { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH }

/** Why the password is refused (a sentence for the person), or null when it is acceptable. */
export function passwordProblem(password: string, email = ''): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `the password must have at least ${MIN_PASSWORD_LENGTH} characters`
  if (password.length > MAX_PASSWORD_LENGTH) return `the password must have at most ${MAX_PASSWORD_LENGTH} characters`
  const lower = password.toLowerCase()
  // "aaaaaaaaaaaa", "abcabcabcabc", "1212121212121": a short unit repeated.
  if (/^(.{1,4})\1+$/su.test(lower) || new Set(lower).size < 5) return 'the password repeats a few characters: choose a longer phrase'
  const stem = lower.replace(/[\d\W_]+$/u, '')
  if (COMMON_PASSWORDS.has(lower) || COMMON_PASSWORDS.has(stem) || COMMON_PASSWORDS.has(lower.replace(/[\W_]+/gu, ''))) {
    return 'the password is one of the most common passwords: choose another'
  }
  const address = email.toLowerCase()
  if (address && (lower === address || stem === address.split('@')[0] || lower.includes(address))) return 'the password is the e-mail address: choose another'
  return null
}
