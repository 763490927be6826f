// What the files need from layers the agents may not import, wired by the hub
// (layers/hub/core/agent-file-guards.ts): Atlas's ClamAV scanner and OCR, and spawn's
// untrusted fencing. The agents layer sees these functions only.
import type { UntrustedFence } from '../custom/webhooks'

export interface FileScan {
  verdict: 'clean' | 'infected' | 'error'
  /** The signature found (infected). */
  signature?: string
  /** Why no verdict could be given (error). */
  reason?: string
  scanner: string
}

export interface FileGuards {
  /** The antivirus's verdict on the bytes; nothing else reads them before a clean one. */
  scan: (bytes: Buffer) => Promise<FileScan>
  /** The text an image shows (kept in memory: the caller puts it in the prompt only). */
  ocr: (image: Buffer) => Promise<string>
  /** A fence for third-party text, one nonce per call. */
  fence: () => UntrustedFence
}
