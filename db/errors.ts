/** A database problem a person can fix: what is wrong, and what to do about it. */
export class DatabaseSetupError extends Error {
  constructor(message: string, readonly fix: string) {
    super(message)
    this.name = 'DatabaseSetupError'
  }
}
