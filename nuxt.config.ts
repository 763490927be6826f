// The hub. The root keeps the design card's layout (pages/, components/, composables/,
// app.vue at the top level), so srcDir is the root; each domain is a layer under layers/
// (auto-registered by Nuxt).
export default defineNuxtConfig({
  modules: ['@nuxt/ui', '@nuxt/eslint', '@pinia/nuxt', '@vueuse/nuxt', 'nuxt-auth-utils', '@nuxtjs/i18n'],
  devtools: { enabled: false },
  css: ['~/assets/css/main.css'],
  // Offline machines: no remote font providers; Inter is served from @fontsource-variable.
  ui: { fonts: false },
  runtimeConfig: {
    // Filled from NUXT_SESSION_PASSWORD (or SESSION_PASSWORD via the launcher); never committed.
    session: { name: 'synedre-session', maxAge: 60 * 60 * 12, password: '' },
  },
  srcDir: '.',
  // Bundled into the server so cronstrue's French words (a side-effect import of its own module)
  // are registered there too: left external, the server described cadences in English only.
  build: { transpile: ['cronstrue'] },
  compatibilityDate: '2026-11-01',
  typescript: { strict: true },
  telemetry: false,
  eslint: { config: { stylistic: true } },
  // French or English, one choice for the whole hub: the `hub-lang` cookie once a person picks
  // in the account menu, the browser's language before that. URLs stay the same in both.
  // Each layer keeps its own words (layers/*/i18n/locales); the root app's are in i18n/locales.
  i18n: {
    strategy: 'no_prefix',
    defaultLocale: 'en',
    locales: [
      { code: 'en', language: 'en', name: 'English', file: 'en.json' },
      { code: 'fr', language: 'fr', name: 'Français', file: 'fr.json' },
    ],
    detectBrowserLanguage: { useCookie: true, cookieKey: 'hub-lang', cookieCrossOrigin: false, fallbackLocale: 'en' },
  },
  icon: {
    provider: 'none',
    // Icons named in TypeScript (domain descriptors) are scanned too, so all are bundled.
    clientBundle: { scan: { globInclude: ['**/*.{vue,ts}'], globExclude: ['node_modules', '.nuxt', '.output', '.data', 'tests', 'dist'] }, sizeLimitKb: 512 },
    serverBundle: { collections: ['lucide'] },
  },
})
