// The ai domain: core/ (framework-free logic), server/api/ (thin routes), pages/hub/ai/.
export default defineNuxtConfig({
  srcDir: '.',
})
