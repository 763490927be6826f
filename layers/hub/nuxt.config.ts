// The application's wiring, above every domain: the agent engine's ports, the webhook route and the ports the
// spawn engine asks of atlas.
export default defineNuxtConfig({
  srcDir: '.',
  // This layer's words: i18n/locales/{en,fr}.json under its own name (tests/unit/translations.test.ts).
  i18n: { locales: [{ code: 'en', file: 'en.json' }, { code: 'fr', file: 'fr.json' }] },
})
