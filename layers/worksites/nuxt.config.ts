// The worksites domain: core/ (framework-free logic), server/api/ (thin routes), pages/hub/worksites/.
export default defineNuxtConfig({
  srcDir: '.',
  // This layer's words: i18n/locales/{en,fr}.json under its own name (tests/unit/translations.test.ts).
  i18n: { locales: [{ code: 'en', file: 'en.json' }, { code: 'fr', file: 'fr.json' }] },
})
