// The spawn engine: core/ (framework-free logic), server/api/atlas/spawns/ (thin routes, their
// URLs unchanged since the engine left atlas), pages/hub/atlas/spawns/.
export default defineNuxtConfig({
  srcDir: '.',
  // This layer's words: i18n/locales/{en,fr}.json under its own name (tests/unit/translations.test.ts).
  i18n: { locales: [{ code: 'en', file: 'en.json' }, { code: 'fr', file: 'fr.json' }] },
})
