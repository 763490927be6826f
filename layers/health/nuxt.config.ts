// The health domain: core/ (framework-free logic), server/api/ (thin routes), pages/hub/health/.
export default defineNuxtConfig({
  srcDir: '.',
})
