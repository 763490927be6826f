// The password lengths the hub accepts, shared by the server's policy and the forms.
export const MIN_PASSWORD_LENGTH = 12
export const MAX_PASSWORD_LENGTH = 1024
