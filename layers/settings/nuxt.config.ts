// Connections at a glance (IMAP, SMTP, ClamAV, OCR, the model providers, the agent CLI), their
// test buttons, and the home page's first-run checklist. Uses atlas, ai, spawn and clients.
export default defineNuxtConfig({
  srcDir: '.',
  // This layer's words: i18n/locales/{en,fr}.json under its own name (tests/unit/translations.test.ts).
  i18n: { locales: [{ code: 'en', file: 'en.json' }, { code: 'fr', file: 'fr.json' }] },
})
