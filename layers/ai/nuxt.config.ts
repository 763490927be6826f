// The ai domain: core/ (framework-free logic), server/api/ (thin routes), pages/hub/ai/.
import { inlinePromptFiles } from './core/prompts/inline'

export default defineNuxtConfig({
  srcDir: '.',
  // Prompt files (core/prompts/file.ts) are written into the server bundle at build time.
  nitro: { rollupConfig: { plugins: [inlinePromptFiles()] } },
  // This layer's words: i18n/locales/{en,fr}.json under its own name (tests/unit/translations.test.ts).
  i18n: { locales: [{ code: 'en', file: 'en.json' }, { code: 'fr', file: 'fr.json' }] },
})
