/** Keeps the last `maxChars` characters written, for the execution log's output tail. */
export function createOutputTail(maxChars = 4000) {
  let buffer = ''
  return {
    write(text: string) {
      buffer = (buffer + text).slice(-maxChars)
    },
    read: () => buffer,
  }
}
