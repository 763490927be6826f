// The ai domain: core/ (framework-free logic), server/api/ (thin routes), pages/hub/ai/.
import { inlinePromptFiles } from './core/prompts/inline'

export default defineNuxtConfig({
  srcDir: '.',
  // Prompt files (core/prompts/file.ts) are written into the server bundle at build time.
  nitro: { rollupConfig: { plugins: [inlinePromptFiles()] } },
})
