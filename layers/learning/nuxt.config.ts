// The learning domain: core/ (framework-free logic), server/api/ (thin routes), pages/hub/learning/.
export default defineNuxtConfig({
  srcDir: '.',
})
