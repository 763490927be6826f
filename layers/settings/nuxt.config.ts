// Connections at a glance (IMAP, SMTP, ClamAV, OCR, the model providers, the agent CLI), their
// test buttons, and the home page's first-run checklist. Uses atlas, ai, spawn and clients.
export default defineNuxtConfig({
  srcDir: '.',
})
