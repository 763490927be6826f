// The base layer: what every layer may use (shared hub components and composables, the
// database and session server utilities, request and stream helpers). It uses no other layer.
export default defineNuxtConfig({
  srcDir: '.',
  // This layer's words: i18n/locales/{en,fr}.json under its own name (tests/unit/translations.test.ts).
  i18n: { locales: [{ code: 'en', file: 'en.json' }, { code: 'fr', file: 'fr.json' }] },
})
