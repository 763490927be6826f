// The environment as the configuration readers take it, and the error naming a variable whose
// value makes no sense. Atlas's configuration re-exports both: the automates tell a
// misconfiguration from a crash by this one class, whichever layer threw it.
export type AtlasEnv = Readonly<Record<string, string | undefined>>

export class AtlasConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`)
    this.name = 'AtlasConfigError'
  }
}
