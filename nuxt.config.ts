// The hub. The root keeps the design card's layout (pages/, components/, composables/,
// app.vue at the top level), so srcDir is the root; each domain is a layer under layers/
// (auto-registered by Nuxt).
export default defineNuxtConfig({
  compatibilityDate: '2026-11-01',
  srcDir: '.',
  modules: ['@nuxt/ui', '@nuxt/eslint', '@pinia/nuxt', '@vueuse/nuxt', 'nuxt-auth-utils'],
  css: ['~/assets/css/main.css'],
  // The hub speaks English; the agents pages switch <html lang> when shown in French.
  app: { head: { htmlAttrs: { lang: 'en' } } },
  devtools: { enabled: false },
  telemetry: false,
  // Offline machines: no remote font providers; Inter is served from @fontsource-variable.
  ui: { fonts: false },
  icon: {
    provider: 'none',
    // Icons named in TypeScript (domain descriptors) are scanned too, so all are bundled.
    clientBundle: { scan: { globInclude: ['**/*.{vue,ts}'], globExclude: ['node_modules', '.nuxt', '.output', '.data', 'tests', 'dist'] }, sizeLimitKb: 512 },
    serverBundle: { collections: ['lucide'] },
  },
  typescript: { strict: true },
  eslint: { config: { stylistic: false } },
  runtimeConfig: {
    // Filled from NUXT_SESSION_PASSWORD (or SESSION_PASSWORD via the launcher); never committed.
    session: { name: 'synedre-session', maxAge: 60 * 60 * 12, password: '' },
  },
})
