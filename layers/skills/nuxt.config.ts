// The skills domain: core/ (framework-free logic), server/api/ (thin routes), pages/hub/skills/.
export default defineNuxtConfig({
  srcDir: '.',
})
