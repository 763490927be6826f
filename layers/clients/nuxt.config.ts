// The studio's clients (tenants): who they are, their mail domains and contacts, the repository
// and pre-production address the spawn uses, their model. Uses base and ai (the providers).
export default defineNuxtConfig({
  srcDir: '.',
  // This layer's words: i18n/locales/{en,fr}.json under its own name (tests/unit/translations.test.ts).
  i18n: { locales: [{ code: 'en', file: 'en.json' }, { code: 'fr', file: 'fr.json' }] },
})
